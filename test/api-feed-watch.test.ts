import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FeedWatch } from '../api/feed-watch.js'
import { VersionedResults } from '../api/versioned-results.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { addressFor, hashFor, insertHoldings, insertPrices, insertSwaps } from './support/factories.js'
import { spyingOnQueries } from './support/query-spy.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0)

/**
 * The API's reads of the change feed (api/feed-watch.ts): shared by the requests that
 * arrive together, always started after the request that asks, and per kind of data.
 */
describe('the API reading the change feed', () => {
  let rt: TestRuntime
  let positionReads = 0

  /** The runtime's client, counting the reads of the feed's position. */
  const counting = (client: ClickHouseClient) =>
    spyingOnQueries(client, (sql) => {
      if (sql.includes('system.parts')) positionReads++
    })

  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertSwaps(rt, [{ hash: hashFor('feed-watch-0'), timestamp: T0 }])
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('costs 50 requests arriving together one read of the position, and one computation', async () => {
    const feed = new FeedWatch(counting(rt.clickhouse), rt.tables)
    const kept = new VersionedResults(feed, ['swap'])
    let computed = 0
    const before = positionReads
    const results = await Promise.all(Array.from({ length: 50 }, () => kept.read('page', async () => ++computed)))
    expect(positionReads - before).toBe(1)
    expect(computed).toBe(1)
    expect(new Set(results)).toEqual(new Set([1]))
  })

  it('embedded, reads no position while no write has ended in this process since the last read', async () => {
    const feed = new FeedWatch(rt.clickhouse, rt.tables)
    const query = rt.clickhouse.query.bind(rt.clickhouse)
    let reads = 0
    rt.clickhouse.query = ((params: { query: string }) => {
      if (params.query.includes('system.parts')) reads++
      return query(params as Parameters<typeof query>[0])
    }) as typeof rt.clickhouse.query
    try {
      const a = await feed.read()
      const b = await feed.read()
      expect(reads).toBe(1)
      expect(b.position).toBe(a.position)
      await insertSwaps(rt, [{ hash: hashFor('feed-watch-embedded'), timestamp: T0 + 1 }])
      const c = await feed.read()
      expect(reads).toBe(2)
      expect(c.position).toBeGreaterThan(a.position)
      expect(c.versions.swap).toBeGreaterThan(b.versions.swap)
    } finally {
      rt.clickhouse.query = query
    }
  })

  it('gives a request asking while a read runs a read that starts after it', async () => {
    const feed = new FeedWatch(rt.clickhouse, rt.tables)
    const first = feed.read()
    await new Promise((resolve) => setImmediate(resolve)) // the first read has started
    const second = feed.read()
    expect(second).not.toBe(first)
    const [a, b] = await Promise.all([first, second])
    expect(b.read).toBe(a.read + 1)
  })

  it('moves the version of the kinds stored, only those', async () => {
    const feed = new FeedWatch(rt.clickhouse, rt.tables)
    const start = await feed.read()
    await insertHoldings(rt, [{ wallet_address: addressFor('feed-watch-wallet'), contract_address: addressFor('feed-watch-token') }])
    const afterHolding = await feed.read()
    expect(afterHolding.position).toBeGreaterThan(start.position)
    expect(afterHolding.versions.holding).toBeGreaterThan(start.versions.holding)
    expect(afterHolding.versions.swap).toBe(start.versions.swap)
    await insertPrices(rt, [{ contract_address: addressFor('feed-watch-token'), timestamp: T0, price_usd: 2 }])
    await insertSwaps(rt, [{ hash: hashFor('feed-watch-1'), timestamp: T0 + 1 }])
    const afterSwap = await feed.read()
    expect(afterSwap.versions.swap).toBeGreaterThan(afterHolding.versions.swap)
    expect(afterSwap.versions.price).toBeGreaterThan(afterHolding.versions.price)
    expect(afterSwap.versions.holding).toBe(afterHolding.versions.holding)
    const idle = await feed.read()
    expect(idle.versions).toEqual(afterSwap.versions)
    expect(idle.position).toBe(afterSwap.position)
  })

  it('keeps a result while its kinds do not change, and computes again once they do', async () => {
    const feed = new FeedWatch(rt.clickhouse, rt.tables)
    const kept = new VersionedResults(feed, ['holding'])
    let computed = 0
    const compute = async () => ++computed
    expect(await kept.read('page', compute)).toBe(1)
    await insertSwaps(rt, [{ hash: hashFor('feed-watch-2'), timestamp: T0 + 2 }])
    expect(await kept.read('page', compute)).toBe(1)
    await insertHoldings(rt, [{ wallet_address: addressFor('feed-watch-wallet'), contract_address: addressFor('feed-watch-other') }])
    expect(await kept.read('page', compute)).toBe(2)
  })
})
