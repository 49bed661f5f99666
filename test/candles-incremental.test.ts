import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshCandles } from '../shared/candles/candle-refresh.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { rawHourCandlesSql } from '../shared/candles/raw-hour-candles.js'
import { addressOf, hashOf, insertPrices, insertSwaps, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const H = 3_600_000
const T0 = Date.UTC(2026, 2, 1)
const tokens = [addressOf(11), addressOf(12), addressOf(13), addressOf(14)]

/** A small deterministic generator, so a failure can be replayed. */
function prng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Row = [string, number, number, number, number, number, number]

/**
 * Stored candles are re-aggregated only where marks say something changed; after any mix
 * of late, re-delivered and moved records they equal an aggregation of everything from
 * scratch, bucket for bucket.
 */
describe('stored one-hour candles, refreshed incrementally', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertTokens(rt, tokens.map((address, i) => ({ address, decimals: [18, 6, 8, 0][i]! })))
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  async function stored(): Promise<Row[]> {
    const rs = await rt.clickhouse.query({
      query: `SELECT token, hour, open, high, low, close, round(volume, 6) FROM ${rt.tables.candles1h} FINAL ORDER BY token, hour`,
      format: 'JSONCompactEachRow',
    })
    return rs.json<Row>()
  }

  async function fromScratch(): Promise<Row[]> {
    const rs = await rt.clickhouse.query({
      query: `SELECT token, bucket, open, high, low, close, round(volume, 6) FROM (${rawHourCandlesSql(rt.tables)}) ORDER BY token, bucket`,
      query_params: { tokens, from: dateTime64Param(0), before: dateTime64Param(Date.UTC(2300, 0, 1)) },
      format: 'JSONCompactEachRow',
    })
    return rs.json<Row>()
  }

  it('equal a from-scratch aggregation after random late, re-delivered and moved records', async () => {
    const rand = prng(20261123)
    const swaps: Parameters<typeof insertSwaps>[1] = []
    let refreshes = 0
    for (let round = 0; round < 12; round++) {
      const batch: typeof swaps = []
      for (let i = 0; i < 30; i++) {
        const pick = rand()
        if (pick < 0.25 && swaps.length > 0) {
          batch.push(swaps[Math.floor(rand() * swaps.length)]!) // re-delivered as it was
        } else if (pick < 0.35 && swaps.length > 0) {
          const moved = { ...swaps[Math.floor(rand() * swaps.length)]!, time: T0 + Math.floor(rand() * 72) * H + 7 }
          batch.push(moved) // re-delivered at another time (possibly hours away): its old bucket loses it
        } else {
          const [sold, bought] = [tokens[Math.floor(rand() * 4)]!, tokens[Math.floor(rand() * 4)]!]
          const s = {
            hash: hashOf(100_000 + swaps.length + batch.length + round * 1000),
            time: T0 + Math.floor(rand() * 72 * H), // anywhere in three days: late records too
            sold: { address: sold, raw: String(1 + Math.floor(rand() * 1e9)) },
            bought: { address: bought, raw: String(1 + Math.floor(rand() * 1e9)) },
            valueUsd: rand() < 0.1 ? null : Math.round(rand() * 1e6) / 100,
          }
          batch.push(s)
        }
      }
      await insertSwaps(rt, batch)
      for (const s of batch) {
        const at = swaps.findIndex((x) => x.hash === s.hash)
        if (at >= 0) swaps[at] = s
        else swaps.push(s)
      }
      if (round % 3 === 1) {
        await insertPrices(rt, [{ address: tokens[round % 4]!, time: T0 + Math.floor(rand() * 72 * H), price: 1 + rand(), volume: rand() * 10 }])
      }
      if (round % 2 === 1) {
        await refreshCandles(rt.clickhouse, rt.tables)
        refreshes++
      }
    }
    await refreshCandles(rt.clickhouse, rt.tables)
    expect(refreshes).toBeGreaterThan(3)
    const expected = await fromScratch()
    expect(expected.length).toBeGreaterThan(50)
    expect(await stored()).toEqual(expected)
  })

  it('a token whose decimals change has its whole history re-aggregated', async () => {
    await insertTokens(rt, [{ address: tokens[1]!, decimals: 9 }])
    const result = await refreshCandles(rt.clickhouse, rt.tables)
    expect(result.earliestChange.get(tokens[1]!)).toBeNull()
    expect(await stored()).toEqual(await fromScratch())
  })

  it('a refresh with nothing changed since the last one re-aggregates nothing', async () => {
    await refreshCandles(rt.clickhouse, rt.tables)
    const result = await refreshCandles(rt.clickhouse, rt.tables)
    expect(result.tokens).toEqual([])
  })
})
