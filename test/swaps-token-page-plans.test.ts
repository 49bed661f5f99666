import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SwapHourCounts } from '../api/swap-hour-counts.js'
import { SwapsRepository, type PageStart } from '../api/swaps-repository.js'
import { TokenDirectory } from '../api/token-directory.js'
import { VersionedResults } from '../api/versioned-results.js'
import { FeedWatch } from '../api/feed-watch.js'
import { createLogger } from '../shared/platform/logger.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A token's page is read one of two ways (api/swaps-repository.ts SCAN_ROWS): its keys
 * from the token path, then its rows by key; or, when its hours hold few swaps, a scan of
 * those hours in swaps_by_time filtered by the row's tokens. Both must give the same
 * swaps, totals and cursors, with re-deliveries and a swap moved to another hour.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 6, 1)
const [a, b, c] = [addressFor('plans-a'), addressFor('plans-b'), addressFor('plans-c')]
const rows: SwapRowInput[] = []

let rt: TestRuntime
let redis: Redis
let directory: TokenDirectory
const repositories: Record<'keys' | 'scan', SwapsRepository> = {} as Record<'keys' | 'scan', SwapsRepository>

beforeAll(async () => {
  rt = await createTestRuntime()
  for (let i = 0; i < 48; i++) {
    rows.push({
      hash: hashFor(`plans-${i}`),
      timestamp: T0 + Math.floor(i / 4) * HOUR + (i % 4) * 600_000 + (i % 3 === 0 ? 0 : 1_000), // several per hour, some at one time
      token_sold_address: [a, b, c][i % 3],
      token_bought_address: i % 2 === 0 ? a : b,
    })
  }
  await insertSwaps(rt, rows)
  await insertSwaps(rt, rows.slice(0, 12).map((r) => ({ ...r, ingested_at: Date.now() + 1_000 }))) // re-delivered
  const moved = { ...rows[7]!, timestamp: T0 + 11 * HOUR + 5, ingested_at: Date.now() + 2_000 } // to another hour
  await insertSwaps(rt, [moved])
  rows[7] = moved

  redis = createRedis(rt.config.redis.url)
  directory = await TokenDirectory.start({ clickhouse: rt.clickhouse, tables: rt.tables, redis, redisPrefix: rt.config.redis.prefix, refreshMs: 60_000, logger: createLogger('silent') })
  for (const [plan, scanRows] of [['keys', 0], ['scan', Infinity]] as const) {
    const feed = new FeedWatch(rt.clickhouse, rt.tables)
    const counts = new SwapHourCounts(rt.clickhouse, rt.tables, feed)
    repositories[plan] = new SwapsRepository(rt.clickhouse, rt.tables, counts, directory, new VersionedResults(feed, ['swap']), { scanRows })
    // The unfiltered hours counted, as other pages would have: the scan plan needs them to choose.
    await repositories[plan].list({ startMs: T0 - HOUR, endMs: T0 + 20 * HOUR }, { limit: 1, offset: 0 }, { offset: 0 }, { fresh: true })
  }
}, 60_000)

afterAll(async () => {
  await directory?.close()
  redis?.disconnect()
  await rt?.cleanup()
})

const expected = (token: string, from: number, to: number) =>
  rows
    .filter((r) => r.timestamp >= from && r.timestamp <= to && (r.token_sold_address === token || r.token_bought_address === token))
    .sort((x, y) => y.timestamp - x.timestamp || (x.hash < y.hash ? -1 : x.hash > y.hash ? 1 : 0))
    .map((r) => r.hash)

/** Every page of a token's swaps in [from, to], by offset or by cursor: hashes and the totals seen. */
async function walk(plan: 'keys' | 'scan', token: string, from: number, to: number, by: 'offset' | 'cursor') {
  const hashes: string[] = []
  const totals = new Set<number>()
  let start: PageStart = { offset: 0 }
  for (let guard = 0; guard < 100; guard++) {
    const page = await repositories[plan].list({ startMs: from, endMs: to, tokenAddresses: [token] }, { limit: 4, offset: 0 }, start, { fresh: true })
    hashes.push(...page.swaps.map((s) => s.hash))
    totals.add(page.total)
    if (by === 'cursor') {
      if (page.next === null) break
      start = { cursor: page.next }
    } else {
      if (page.swaps.length < 4) break
      start = { offset: hashes.length }
    }
  }
  return { hashes, totals: [...totals] }
}

describe('token pages: keys, then rows by key, or a scan of their hours', () => {
  const ranges: Array<[string, number, number]> = [
    ['whole hours', T0, T0 + 12 * HOUR - 1],
    ['partial edge hours', T0 + 25 * 60_000, T0 + 10 * HOUR + 35 * 60_000],
  ]
  for (const [name, from, to] of ranges) {
    for (const by of ['offset', 'cursor'] as const) {
      it(`give the same swaps and totals, ${name}, by ${by}`, async () => {
        for (const token of [a, b, c]) {
          const want = expected(token, from, to)
          const keys = await walk('keys', token, from, to, by)
          const scan = await walk('scan', token, from, to, by)
          expect(keys).toEqual({ hashes: want, totals: [want.length] })
          expect(scan).toEqual(keys)
        }
      })
    }
  }
})
