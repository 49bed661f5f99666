import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { addressFor, hashFor, insertHoldings, insertSwaps, insertTokens } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { spyingOnQueries } from './support/query-spy.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0)
const RANGE = `start_time=${T0 - 86_400_000}&end_time=${T0 + 86_400_000}`

/**
 * The API keeps the rows of a page until the change feed shows rows of that kind stored
 * again (api/versioned-results.ts, api/feed-watch.ts): a repeated or concurrent request
 * costs no query but the feed's position, and a request made after an acknowledgement
 * still sees the acknowledged rows.
 */
describe('kept results of swap and holding pages', () => {
  let rt: TestRuntime
  let api: TestApi
  let ingest: IngestHarness
  /** Queries but the reads of the change feed (its position in system.parts, its changes), which `feed` counts. */
  let queries = 0
  /** Queries of the swaps' tables: what computing a swap page reads. */
  let swapReads = 0
  let feed = 0
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const wallet = addressFor('kept-wallet')
  const usdc = addressFor('kept-usdc')
  const weth = addressFor('kept-weth')
  const swap = (i: number) => ({
    hash: hashFor(`kept-${i}`),
    timestamp: T0 + i * 60_000,
    wallet_address: wallet,
    token_sold_address: usdc,
    token_bought_address: weth,
  })

  /** The runtime's client, counting the queries the API makes. */
  const counting = (client: ClickHouseClient) =>
    spyingOnQueries(client, (sql) => {
      if (sql.includes('system.parts') || sql.includes(rt.tables.changes)) feed++
      else queries++
      if ([rt.tables.swaps, rt.tables.swapsByWallet, rt.tables.swapLegs].some((table) => sql.includes(table))) swapReads++
    })

  const swapsPage = async (query = '', headers: Record<string, string> = {}) => {
    const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?${RANGE}${query}`, { headers })
    expect(status).toBe(200)
    return { hashes: (body.result as { hash: string }[]).map((s) => s.hash), total: body.pagination.total as number }
  }

  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertTokens(rt, [
      { contract_address: usdc, symbol: 'USDC', decimals: 6 },
      { contract_address: weth, symbol: 'WETH', decimals: 18 },
    ])
    await insertSwaps(rt, Array.from({ length: 10 }, (_, i) => swap(i)))
    await insertHoldings(rt, [{ wallet_address: wallet, contract_address: usdc, value_usd: 10 }])
    api = await startTestApi({ ...rt, clickhouse: counting(rt.clickhouse) })
    ingest = await startIngestHarness(rt)
  })

  afterAll(async () => {
    await ingest?.close()
    await api?.close()
    redis.disconnect()
    await rt?.cleanup()
  })

  it('answers a repeated page without a query but the feed position, and a no-cache request with one', async () => {
    const first = await swapsPage()
    expect(first.total).toBe(10)
    const before = queries
    const feedBefore = feed
    expect(await swapsPage()).toEqual(first)
    expect(queries).toBe(before)
    expect(feed).toBe(feedBefore + 1)
    expect(await swapsPage(`&address=${wallet}`)).toEqual(first)
    const afterWallet = queries
    expect(await swapsPage(`&address=${wallet}`)).toEqual(first)
    expect(queries).toBe(afterWallet)
    expect(afterWallet).toBeGreaterThan(before) // the wallet page was a new one
    await swapsPage('', { 'cache-control': 'no-cache' })
    expect(queries).toBeGreaterThan(afterWallet)
  })

  it('shows swaps acknowledged by ingestion on the next request, on every kind of page', async () => {
    await swapsPage()
    await swapsPage(`&address=${wallet}`)
    await swapsPage(`&token_id=${weth}`)
    const late = { ...swap(50), timestamp: T0 + 50 * 60_000 }
    const jobId = await ingest.producer.send('swap', [
      {
        hash: late.hash,
        block_number: 19_000_050,
        timestamp: late.timestamp,
        wallet_address: wallet,
        token_sold: { contract_address: usdc, amount_raw: '1000000' },
        token_bought: { contract_address: weth, amount_raw: '1000000000000000000' },
        value_usd: 1,
        dex: 'uniswap-v3',
      },
    ], 'test')
    await ingest.finished(jobId)
    for (const query of ['', `&address=${wallet}`, `&token_id=${weth}`]) {
      const page = await swapsPage(query)
      expect(page.total).toBe(11)
      expect(page.hashes[0]).toBe(late.hash)
    }
    const byHash = await getJson(`${api.baseUrl}/swap-transactions/${late.hash}`)
    expect(byHash.status).toBe(200)
  })

  it('shares one computation among concurrent identical requests', async () => {
    await swapsPage('&limit=7') // a page not read before: counts warmed, its rows computed
    const one = queries
    await swapsPage('&limit=7', { 'cache-control': 'no-cache' })
    const perComputation = queries - one
    expect(perComputation).toBeGreaterThan(0)
    // A swap stored (a new version of the swaps), then 30 requests at once.
    await insertSwaps(rt, [swap(60)])
    const start = queries
    const feedStart = feed
    const pages = await Promise.all(Array.from({ length: 30 }, () => swapsPage('&limit=9')))
    expect(new Set(pages.map((p) => JSON.stringify(p))).size).toBe(1)
    expect(pages[0]!.total).toBe(12)
    // The hour counts recount once, then one computation of the page: far fewer than 30.
    expect(queries - start).toBeLessThan(perComputation * 3 + 6)
    // A read of the feed covers every request that arrived before it started (feed-watch.test.ts):
    // over HTTP they arrive across a few turns of the event loop, still far fewer than 30 reads.
    expect(feed - feedStart).toBeLessThan(10)
  })

  it('answers 50 concurrent requests for a kept page with a few reads of the feed and no other query', async () => {
    await swapsPage('&limit=3')
    const start = swapReads
    const feedStart = feed
    const pages = await Promise.all(Array.from({ length: 50 }, () => swapsPage('&limit=3')))
    expect(new Set(pages.map((p) => JSON.stringify(p))).size).toBe(1)
    // No read of the swaps (the API's timers may query other tables meanwhile, as the token directory's reload).
    expect(swapReads).toBe(start)
    expect(feed - feedStart).toBeLessThan(10)
  })

  it('shows holdings acknowledged by ingestion on the next request', async () => {
    const read = async () => {
      const { status, body } = await getJson(`${api.baseUrl}/holdings`)
      expect(status).toBe(200)
      return body as { result: { token: { contractAddress: string }; value_usd: number }[]; pagination: { total: number } }
    }
    expect((await read()).pagination.total).toBe(1)
    const before = queries
    await read()
    expect(queries).toBe(before)
    const jobId = await ingest.producer.send('holding', [
      { wallet_address: wallet, contract_address: weth, balance_raw: '5', value_usd: 99, as_of: T0 },
    ], 'test')
    expect(await ingest.finished(jobId)).toMatchObject({ accepted: 1 })
    const after = await read()
    expect(after.pagination.total).toBe(2)
    expect(after.result[0]!.value_usd).toBe(99)
  })

  it('keeps a holdings page across swaps stored, and drops it when holdings are', async () => {
    const read = async () => (await getJson(`${api.baseUrl}/holdings`)).body as { result: { value_usd: number }[]; pagination: { total: number } }
    const first = await read()
    await insertSwaps(rt, [swap(70)])
    const before = queries
    expect(await read()).toEqual(first)
    expect(queries).toBe(before)
    await insertHoldings(rt, [{ wallet_address: addressFor('kept-other'), contract_address: usdc, value_usd: 5 }])
    expect((await read()).pagination.total).toBe(first.pagination.total + 1)
    expect(queries).toBeGreaterThan(before)
  })

  it('stays exact with Redis emptied: kept pages follow the change feed, not Redis', async () => {
    await deleteKeysWithPrefix(redis, rt.config.redis.prefix)
    const kept = await swapsPage()
    const before = queries
    expect(await swapsPage()).toEqual(kept)
    expect(queries).toBe(before)
    // A swap stored straight into ClickHouse after the page was kept shows on the next read.
    await insertSwaps(rt, [swap(80)])
    const after = await swapsPage()
    expect(after.total).toBe(kept.total + 1)
    expect(after.hashes[0]).toBe(swap(80).hash)
  })
})
