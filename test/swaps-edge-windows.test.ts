import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * The partial hours at a range's edges are counted once and kept (a client paging through
 * one range asks for the same edges on every page), until the change feed names a swap
 * change in their hour: a swap stored, moved out of or into it, or retracted. Each change
 * shows in the next page's total, for the unfiltered range and a token's; Redis plays no part.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 8, 1)
const FROM = T0 + 20 * 60_000 // 00:20
const TO = T0 + 3 * HOUR + 40 * 60_000 // 03:40
const token = addressFor('edges-token')
const other = addressFor('edges-other')

let rt: TestRuntime
let api: TestApi
const live = new Map<string, SwapRowInput>()

beforeAll(async () => {
  rt = await createTestRuntime()
  api = await startTestApi(rt)
  const rows: SwapRowInput[] = Array.from({ length: 40 }, (_, i) => ({
    hash: hashFor(`edges-${i}`),
    timestamp: T0 + i * 6 * 60_000, // every 6 minutes from 00:00 to 03:54
    token_sold_address: i % 2 === 0 ? token : other,
    token_bought_address: other,
  }))
  await insertSwaps(rt, rows)
  for (const r of rows) live.set(r.hash, r)
}, 60_000)

afterAll(async () => {
  await api?.close()
  await rt?.cleanup()
})

const want = (filter: (r: SwapRowInput) => boolean = () => true) => [...live.values()].filter((r) => r.timestamp >= FROM && r.timestamp <= TO && filter(r)).length
const ofToken = (r: SwapRowInput) => r.token_sold_address === token || r.token_bought_address === token

async function totals(): Promise<{ all: number; token: number }> {
  const page = async (query: string) => {
    // Two pages of the same range, as a client paging: the second reuses the kept edges.
    const first = await getJson(`${api.baseUrl}/swap-transactions?start_time=${FROM}&end_time=${TO}&limit=5${query}`, { headers: { 'cache-control': 'no-cache' } })
    const second = await getJson(`${api.baseUrl}/swap-transactions?start_time=${FROM}&end_time=${TO}&limit=5&offset=5${query}`, { headers: { 'cache-control': 'no-cache' } })
    expect(second.body.pagination.total).toBe(first.body.pagination.total)
    return first.body.pagination.total as number
  }
  return { all: await page(''), token: await page(`&token_id=${token}`) }
}

async function store(rows: SwapRowInput[]): Promise<void> {
  await insertSwaps(rt, rows)
  for (const r of rows) live.set(r.hash, r)
}

describe('kept edge windows', () => {
  it('count the partial hours once, and again when a swap is stored in them', async () => {
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
    await store([{ hash: hashFor('edges-new-late'), timestamp: T0 + 3 * HOUR + 30 * 60_000, token_sold_address: token, token_bought_address: other }])
    await store([{ hash: hashFor('edges-new-early'), timestamp: T0 + 50 * 60_000, token_sold_address: token, token_bought_address: other }])
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
  })

  it('follow a swap moved out of an edge window and one moved into the other', async () => {
    const out = live.get(hashFor('edges-6'))! // 00:36, in the first partial hour
    const into = live.get(hashFor('edges-2'))! // 00:12, before the range
    await store([
      { ...out, timestamp: T0 + 2 * HOUR + 1, ingested_at: Date.now() + 1_000 },
      { ...into, timestamp: T0 + 3 * HOUR + 35 * 60_000, ingested_at: Date.now() + 1_000 },
    ])
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
  })

  it('follow a retraction in an edge window', async () => {
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
    const gone = live.get(hashFor('edges-36'))! // 03:36, in the last partial hour, of the token
    await rt.clickhouse.insert({
      table: rt.tables.swapMoves,
      format: 'JSONEachRow',
      values: [
        {
          hash: gone.hash,
          chain_id: 1,
          timestamp: dateTime64Param(gone.timestamp),
          wallet_address: addressFor('wallet-default'),
          token_sold_address: gone.token_sold_address,
          token_bought_address: gone.token_bought_address,
          superseded_at: dateTime64Param(Date.now() + 2_000),
        },
      ],
    })
    live.delete(gone.hash)
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
  })

  it('stay exact with Redis emptied: a swap stored after they were kept shows on the next page', async () => {
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
    const redis = createRedis(rt.config.redis.url)
    try {
      await deleteKeysWithPrefix(redis, rt.config.redis.prefix)
    } finally {
      redis.disconnect()
    }
    await store([{ hash: hashFor('edges-after-loss'), timestamp: T0 + 25 * 60_000, token_sold_address: token, token_bought_address: other }])
    expect(await totals()).toEqual({ all: want(), token: want(ofToken) })
  })
})
