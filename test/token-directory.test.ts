import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { addressFor, insertHoldings, sampleTechnicalAnalysis } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

interface TokenView {
  id: string
  name: string | null
  symbol: string | null
  decimals: number | null
}

describe('token metadata served from memory, current within a second of ingestion', () => {
  let rt: TestRuntime
  let api: TestApi
  let ingest: IngestHarness
  let redis: Redis
  const token = addressFor('directory-token')
  const wallet = addressFor('directory-wallet')

  beforeAll(async () => {
    // The periodic reload is pushed out of the way: only the change events (and the
    // reload on resubscription) can make a change show within the test's bounds.
    rt = await createTestRuntime({ TOKEN_DIRECTORY_REFRESH_MS: '600000', INGEST_FLUSH_MS: '50', INGEST_CONCURRENCY: '4' })
    redis = createRedis(rt.config.redis.url)
    api = await startTestApi(rt)
    ingest = await startIngestHarness(rt)
    await insertHoldings(rt, [{ wallet_address: wallet, contract_address: token, balance_raw: '1234500', value_usd: 10 }])
    await writeTechnicalAnalysis(
      redis,
      rt.config.redis.prefix,
      sampleTechnicalAnalysis({ contractAddress: token, name: null, symbol: null, decimals: null }),
    )
  })
  afterAll(async () => {
    await ingest?.close()
    await api?.close()
    redis?.disconnect()
    await rt?.cleanup()
  })

  /** What each endpoint says about the token right now. */
  async function views(address: string): Promise<Record<string, TokenView | null>> {
    const [one, list, holdings, ta] = await Promise.all([
      getJson(`${api.baseUrl}/tokens/${address}`),
      getJson(`${api.baseUrl}/tokens?limit=500`),
      getJson(`${api.baseUrl}/holdings/token/${address}`),
      getJson(`${api.baseUrl}/technical-analysis?contract_address=${address}`),
    ])
    const pick = (t: Record<string, unknown> | undefined): TokenView | null =>
      t === undefined ? null : { id: t.id as string, name: t.name as string | null, symbol: t.symbol as string | null, decimals: t.decimals as number | null }
    return {
      token: one.status === 200 ? pick(one.body.result) : null,
      list: pick((list.body.result as Array<Record<string, unknown>>).find((t) => t.contract_address === address)),
      holding: pick(holdings.body.result[0]?.token),
      technicalAnalysis: pick(ta.body.result.token),
    }
  }

  /** Sends one token record through the queue and the real worker; resolves when acknowledged. */
  async function ingestToken(name: string, symbol: string, decimals: number): Promise<number> {
    const jobId = await ingest.producer.send('token', [{ contract_address: token, name, symbol, decimals }], 'directory-test')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 0 })
    return Date.now()
  }

  /** Polls until every endpoint shows `expected`; returns how long it took. */
  async function until(expected: TokenView, address = token): Promise<number> {
    const started = Date.now()
    const everywhere = { token: expected, list: expected, holding: expected, technicalAnalysis: expected }
    await expect.poll(() => views(address), { timeout: 5_000, interval: 20 }).toEqual(everywhere)
    return Date.now() - started
  }

  it('before any metadata: 404, absent from the list, null fields in the holding and the indicators', async () => {
    const unknown = { id: token, name: null, symbol: null, decimals: null }
    expect(await views(token)).toEqual({ token: null, list: null, holding: unknown, technicalAnalysis: unknown })
  })

  it('a token record ingested through the worker shows on every endpoint within 1 s, no restart', async () => {
    await ingestToken('Directory Token', 'DIR', 6)
    const took = await until({ id: token, name: 'Directory Token', symbol: 'DIR', decimals: 6 })
    expect(took).toBeLessThan(1_000)
    // The holding's amount follows the new decimals.
    const { body } = await getJson(`${api.baseUrl}/holdings/token/${token}`)
    expect(body.result[0].balance).toBe(1.2345)
  })

  it('a later record for the same token changes it everywhere within 1 s (the id stays)', async () => {
    await ingestToken('Directory Token v2', 'DIR2', 3)
    const took = await until({ id: token, name: 'Directory Token v2', symbol: 'DIR2', decimals: 3 })
    expect(took).toBeLessThan(1_000)
    const { body } = await getJson(`${api.baseUrl}/tokens?limit=500`)
    expect(body.pagination.total).toBe(1)
  })

  it('GET /technical-analysis of a cached token, by address or by id, sends no query to ClickHouse', async () => {
    let queries = 0
    const counting = new Proxy(rt.clickhouse, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver)
        if (key !== 'query' || typeof value !== 'function') return value
        return (...args: unknown[]) => {
          queries++
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
    const counted = await startTestApi({ ...rt, clickhouse: counting })
    try {
      const loaded = queries
      expect(loaded).toBeGreaterThan(0) // the directory's own load went through the proxy
      for (const param of [`contract_address=${token}`, `token_id=${token}`]) {
        const { status, body } = await getJson(`${counted.baseUrl}/technical-analysis?${param}`)
        expect(status).toBe(200)
        expect(body.result.token.contractAddress).toBe(token)
      }
      expect(queries - loaded).toBe(0)
    } finally {
      await counted.close()
    }
  })

  it('recovers after its subscriber connection is dropped: catches up on what it missed, then hears changes again', async () => {
    const name = `${rt.config.redis.prefix}:token-directory`
    const subscriberIds = async () =>
      String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
        .split('\n')
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => /(?:^| )id=(\d+)/.exec(line)![1]!)
    const before = await subscriberIds()
    expect(before.length).toBeGreaterThan(0)

    // Written and never announced (as if the event was lost while the connection was down;
    // written before the drop, so the reconnection cannot race ahead of the write).
    const missed = addressFor('directory-missed')
    await insertHoldings(rt, [{ wallet_address: wallet, contract_address: missed, value_usd: 5 }])
    await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: missed }))
    await rt.clickhouse.insert({
      table: rt.tables.tokens,
      values: [{ contract_address: missed, id: missed, chain_id: 1, name: 'Missed', symbol: 'MISS', decimals: 0, updated_at: Date.now() }],
      format: 'JSONEachRow',
    })
    expect((await views(missed)).token).toBeNull() // not heard of
    for (const id of before) await redis.call('CLIENT', 'KILL', 'ID', id)
    // The reconnection reloads everything (the periodic reload is 10 minutes away).
    await until({ id: missed, name: 'Missed', symbol: 'MISS', decimals: 0 }, missed)
    await expect.poll(async () => (await subscriberIds()).length, { timeout: 5_000 }).toBeGreaterThan(0)
    expect((await subscriberIds()).filter((id) => before.includes(id))).toEqual([])

    // And it is subscribed again: an ingested change shows within 1 s.
    await ingestToken('Directory Token v3', 'DIR3', 9)
    expect(await until({ id: token, name: 'Directory Token v3', symbol: 'DIR3', decimals: 9 })).toBeLessThan(1_000)
  })
})
