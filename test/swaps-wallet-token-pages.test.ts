import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * The wallet path holds whole rows (swap_rows_by_wallet): a wallet's
 * pages (alone, with a token filter, by offset and by cursor) are the same swaps, in the
 * same order, with the same totals, as the time path filtered by hand.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 2, 1)
const RANGE = `start_time=${T0 - HOUR}&end_time=${T0 + 200 * HOUR}`
const wallet = addressFor('rows-wallet')
const other = addressFor('rows-other')
const [usdc, weth, pepe] = [addressFor('rows-usdc'), addressFor('rows-weth'), addressFor('rows-pepe')]

let rt: TestRuntime
let api: TestApi
const rows: SwapRowInput[] = []

beforeAll(async () => {
  rt = await createTestRuntime()
  api = await startTestApi(rt)
  for (let i = 0; i < 60; i++) {
    rows.push({
      hash: hashFor(`rows-${i}`),
      timestamp: T0 + (i % 40) * 3 * HOUR, // times shared by several swaps: the hash orders them
      wallet_address: i % 4 === 3 ? other : wallet,
      token_sold_address: i % 3 === 0 ? pepe : usdc,
      token_bought_address: weth,
      token_sold_amount: `${10n ** 30n + BigInt(i)}`,
    })
  }
  await insertSwaps(rt, rows)
  // Re-delivered, and one moved to another time (the later delivery wins).
  await insertSwaps(rt, rows.slice(0, 10).map((r) => ({ ...r, ingested_at: Date.now() + 1_000 })))
  await insertSwaps(rt, [{ ...rows[5]!, timestamp: T0 + 150 * HOUR, ingested_at: Date.now() + 2_000 }])
  rows[5] = { ...rows[5]!, timestamp: T0 + 150 * HOUR }
}, 60_000)

afterAll(async () => {
  await api?.close()
  await rt?.cleanup()
})

const expected = (filter: (r: SwapRowInput) => boolean) =>
  rows.filter(filter).sort((a, b) => b.timestamp - a.timestamp || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)).map((r) => r.hash)

async function walk(query: string): Promise<{ hashes: string[]; total: number }> {
  const hashes: string[] = []
  let cursor: string | null = null
  let total = -1
  do {
    const url: string = `${api.baseUrl}/swap-transactions?${RANGE}&${query}&limit=7${cursor ? `&cursor=${cursor}` : ''}`
    const { status, body } = await getJson(url, { headers: { 'cache-control': 'no-cache' } })
    expect(status).toBe(200)
    total = body.pagination.total as number
    hashes.push(...(body.result as Array<{ hash: string }>).map((s) => s.hash))
    cursor = body.pagination.next_cursor as string | null
  } while (cursor)
  return { hashes, total }
}

describe('wallet pages from whole rows, token pages by hours', () => {
  it('serves a wallet alone and with a token filter as the time path does, by cursor and by offset', async () => {
    const mine = expected((r) => r.wallet_address === wallet)
    expect(await walk(`address=${wallet}`)).toEqual({ hashes: mine, total: mine.length })
    const minePepe = expected((r) => r.wallet_address === wallet && r.token_sold_address === pepe)
    expect(await walk(`address=${wallet}&token_id=${pepe}`)).toEqual({ hashes: minePepe, total: minePepe.length })
    const { body } = await getJson(`${api.baseUrl}/swap-transactions?${RANGE}&address=${wallet.toUpperCase().replace('0X', '0x')}&limit=5&offset=20`)
    expect((body.result as Array<{ hash: string }>).map((s) => s.hash)).toEqual(mine.slice(20, 25))
    expect(body.result[0].token_sold.amount_raw).toBe(rows.find((r) => r.hash === mine[20])!.token_sold_amount)
  })

  it('serves a token (either leg) from its hour counts, exact again after new swaps and a move into a counted hour', async () => {
    const withPepe = () => expected((r) => r.token_sold_address === pepe || r.token_bought_address === pepe)
    expect(await walk(`token_id=${pepe}`)).toEqual({ hashes: withPepe(), total: withPepe().length })
    const added: SwapRowInput[] = [0, 1, 2].map((i) => ({ hash: hashFor(`rows-new-${i}`), timestamp: T0 + 30 * HOUR + i, wallet_address: other, token_sold_address: weth, token_bought_address: pepe }))
    await insertSwaps(rt, added)
    rows.push(...added)
    const moved = { ...rows.find((r) => r.token_sold_address === pepe && r.timestamp < T0 + 30 * HOUR)!, timestamp: T0 + 33 * HOUR + 5, ingested_at: Date.now() + 3_000 }
    await insertSwaps(rt, [moved])
    rows[rows.findIndex((r) => r.hash === moved.hash)] = moved
    expect(await walk(`token_id=${pepe}`)).toEqual({ hashes: withPepe(), total: withPepe().length })
    const { body } = await getJson(`${api.baseUrl}/swap-transactions?${RANGE}&token_id=${pepe}&limit=4&offset=6`, { headers: { 'cache-control': 'no-cache' } })
    expect((body.result as Array<{ hash: string }>).map((s) => s.hash)).toEqual(withPepe().slice(6, 10))
  })

  it('counts the partial hours at both edges of a range for the token only', async () => {
    const at = (h: number, min: number) => T0 + h * HOUR + min * 60_000
    const edgeRows: SwapRowInput[] = [
      { hash: hashFor('edge-1'), timestamp: at(100, 10), wallet_address: other, token_sold_address: pepe, token_bought_address: weth },
      { hash: hashFor('edge-2'), timestamp: at(100, 20), wallet_address: other, token_sold_address: usdc, token_bought_address: weth },
      { hash: hashFor('edge-3'), timestamp: at(104, 10), wallet_address: other, token_sold_address: pepe, token_bought_address: weth },
      { hash: hashFor('edge-4'), timestamp: at(104, 20), wallet_address: other, token_sold_address: usdc, token_bought_address: weth },
    ]
    await insertSwaps(rt, edgeRows)
    rows.push(...edgeRows)
    const [from, to] = [at(100, 5), at(104, 30)]
    const inRange = (r: SwapRowInput) => r.timestamp >= from && r.timestamp <= to
    for (const token of [pepe, usdc]) {
      const { body } = await getJson(`${api.baseUrl}/swap-transactions?start_time=${from}&end_time=${to}&token_id=${token}&limit=100`, { headers: { 'cache-control': 'no-cache' } })
      const want = expected((r) => inRange(r) && (r.token_sold_address === token || r.token_bought_address === token))
      expect(body.pagination.total).toBe(want.length)
      expect((body.result as Array<{ hash: string }>).map((s) => s.hash)).toEqual(want)
    }
  })
})
