import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { readTechnicalAnalysis, technicalAnalysisKey } from '../shared/candles/technical-analysis.js'
import { IndicatorEngine, NO_CANDLES_REASON } from '../indicators/engine.js'
import { RecomputeLocks } from '../indicators/recompute-lock.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { expectClose, referenceVectors } from './support/ta-reference.js'

const reference = referenceVectors()
const NOW = Date.UTC(2026, 5, 1, 13, 30) // the 12:00 interval is in progress
const LAST_CLOSED = lastClosedCandleStart(NOW)

/** One price record per 4-hour interval, the last one in the last closed interval. */
function closesAsPrices(address: string, closes: number[], endTime = LAST_CLOSED) {
  return closes.map((price, i) => ({
    address,
    time: endTime - (closes.length - 1 - i) * CANDLE_MS + 17 * 60_000,
    price,
    volume: 10,
  }))
}

describe('indicator engine: candles from ClickHouse, indicators, Redis', () => {
  let rt: TestRuntime
  let redis: Redis
  let engine: IndicatorEngine
  const prefix = () => rt.config.redis.prefix

  beforeAll(async () => {
    rt = await createTestRuntime()
    redis = createRedis(rt.config.redis.url)
    engine = new IndicatorEngine(
      { clickhouse: rt.clickhouse, tables: rt.tables, redis, redisPrefix: prefix(), logger: rt.logger, clock: () => NOW },
      { batchSize: 2, lockWaitMs: 300 },
    )
  })
  afterAll(async () => {
    redis.disconnect()
    await rt.cleanup()
  })

  it('agrees with TA-Lib on every reference vector after a full recompute', async () => {
    const tokens = reference.vectors.map((v, i) => ({ vector: v, address: addressOf(100 + i) }))
    await insertTokens(rt, tokens.map((t) => ({ address: t.address, decimals: 18, symbol: t.vector.id })))
    for (const t of tokens) await insertPrices(rt, closesAsPrices(t.address, t.vector.closes))
    const result = await engine.recomputeAll()
    expect(result.written).toBe(tokens.length)
    for (const { vector, address } of tokens) {
      const ta = await readTechnicalAnalysis(redis, prefix(), address)
      expect(ta).not.toBeNull()
      expectClose(ta!.ma50, vector.expected.sma50)
      expectClose(ta!.ma100, vector.expected.sma100)
      expectClose(ta!.ma200, vector.expected.sma200)
      expectClose(ta!.rsi, vector.expected.rsi14)
      expectClose(ta!.macd?.macd, vector.expected.macd)
      expectClose(ta!.macd?.signal, vector.expected.macdSignal)
      expectClose(ta!.macd?.histogram, vector.expected.macdHistogram)
      expect(ta!.candleCount).toBe(vector.closes.length)
      expect(ta!.candleTime).toBe(LAST_CLOSED)
      expect(ta!.timestamp).toBe(new Date(NOW).toISOString())
      expect(ta!.token).toEqual({ id: address, name: vector.id, symbol: vector.id, decimals: 18, contractAddress: address })
      const last6 = vector.closes.slice(-6)
      expect(ta!.pivotPoints).toMatchObject({
        dailyHigh: Math.max(...last6),
        dailyLow: Math.min(...last6),
        dailyClose: last6[5],
        volume24: 60,
      })
    }
  })

  it('gives null for each indicator that has too few candles', async () => {
    const closes = reference.vectors[0]!.closes
    const cases = [
      { n: 5, nonNull: [] as string[] },
      { n: 6, nonNull: ['pivotPoints'] },
      { n: 15, nonNull: ['pivotPoints', 'rsi'] },
      { n: 34, nonNull: ['pivotPoints', 'rsi', 'macd'] },
      { n: 199, nonNull: ['pivotPoints', 'rsi', 'macd', 'ma50', 'ma100'] },
    ]
    const fields = ['pivotPoints', 'rsi', 'macd', 'ma50', 'ma100', 'ma200'] as const
    for (const [i, c] of cases.entries()) {
      const address = addressOf(200 + i)
      await insertPrices(rt, closesAsPrices(address, closes.slice(0, c.n)))
      expect(await engine.recomputeToken(address)).toEqual({ written: 1 })
      const ta = await readTechnicalAnalysis(redis, prefix(), address)
      for (const field of fields) {
        if (c.nonNull.includes(field)) expect(ta![field], `${field} with ${c.n} candles`).not.toBeNull()
        else expect(ta![field], `${field} with ${c.n} candles`).toBeNull()
      }
      // No metadata for this token: its derived id, the rest null.
      expect(ta!.token).toEqual({ id: address, name: null, symbol: null, decimals: null, contractAddress: address })
    }
  })

  it('flat prices give rsi null', async () => {
    const address = addressOf(300)
    await insertPrices(rt, closesAsPrices(address, Array.from({ length: 60 }, () => 2.5)))
    await engine.recomputeToken(address)
    const ta = await readTechnicalAnalysis(redis, prefix(), address)
    expect(ta!.rsi).toBeNull()
    expect(ta!.ma50).toBe(2.5)
  })

  it('fills the intervals between trades: the series runs on a regular grid to the last closed interval', async () => {
    const address = addressOf(301)
    // 20 observations, every third interval, the last one 2 days before the last closed interval.
    const end = LAST_CLOSED - 12 * CANDLE_MS
    await insertPrices(
      rt,
      Array.from({ length: 20 }, (_, i) => ({ address, time: end - (19 - i) * 3 * CANDLE_MS, price: 100 + i, volume: 1 })),
    )
    await engine.recomputeToken(address)
    const ta = await readTechnicalAnalysis(redis, prefix(), address)
    expect(ta!.candleCount).toBe(19 * 3 + 1 + 12)
    // The last day has no trades: flat at the last close, no volume.
    expect(ta!.pivotPoints).toMatchObject({ dailyHigh: 119, dailyLow: 119, dailyClose: 119, volume24: 0 })
    expect(ta!.ma50).toBeTypeOf('number')
  })

  it('leaves the interval in progress out', async () => {
    const address = addressOf(302)
    const closes = reference.vectors[2]!.closes
    await insertPrices(rt, closesAsPrices(address, closes))
    // A wild price in the interval in progress changes nothing.
    await insertPrices(rt, [{ address, time: NOW - 60_000, price: 1e6, volume: 1e9 }])
    await engine.recomputeToken(address)
    const ta = await readTechnicalAnalysis(redis, prefix(), address)
    expect(ta!.candleCount).toBe(closes.length)
    expectClose(ta!.rsi, reference.vectors[2]!.expected.rsi14)
    expect(ta!.pivotPoints!.dailyHigh).toBeLessThan(1e6)
  })

  it('recompute-token of a token without closed candles writes nothing and says why', async () => {
    const address = addressOf(303)
    await insertPrices(rt, [{ address, time: NOW - 1000, price: 1 }]) // only the interval in progress
    expect(await engine.recomputeToken(address)).toEqual({ written: 0, reason: NO_CANDLES_REASON })
    expect(await redis.exists(technicalAnalysisKey(prefix(), address))).toBe(0)
  })

  it('one recompute of a token at a time: a token locked elsewhere is skipped by recompute-all, awaited by recompute-token', async () => {
    const address = addressOf(304)
    await insertPrices(rt, closesAsPrices(address, [1, 2, 3]))
    const other = new RecomputeLocks(redis, prefix(), 10_000)
    expect(await other.acquireMany([address])).toEqual([address])
    const all = await engine.recomputeAll()
    expect(all.skipped).toBe(1)
    expect(all.written).toBe(all.tokens - 1)
    expect(await redis.exists(technicalAnalysisKey(prefix(), address))).toBe(0)
    await expect(engine.recomputeToken(address)).rejects.toThrow(/lock/)
    // Our release never deletes another owner's lock.
    const mine = new RecomputeLocks(redis, prefix(), 10_000)
    await mine.release([address])
    expect(await redis.get(other.key(address))).toBe(other.owner)
    await other.release([address])
    expect(await engine.recomputeToken(address)).toEqual({ written: 1 })
    expect(await redis.exists(other.key(address))).toBe(0)
  })
})

describe('address slices of a full recompute', () => {
  it('cover every address exactly once, in order', async () => {
    const { addressRanges } = await import('../indicators/candle-series.js')
    for (const n of [1, 3, 8, 16]) {
      const ranges = addressRanges(n)
      expect(ranges).toHaveLength(n)
      for (const address of [addressOf(0), '0x' + 'f'.repeat(40), '0x7' + '0'.repeat(39), '0x80' + '1'.repeat(38)]) {
        expect(ranges.filter(([lo, hi]) => address >= lo && address < hi), `${address} in ${n} slices`).toHaveLength(1)
      }
      for (let i = 1; i < n; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1])
    }
  })

  it('a full recompute reads a small first slice, then slices covering the rest once, in order', async () => {
    const { recomputeSlices } = await import('../indicators/candle-series.js')
    for (const n of [1, 3, 8, 16]) {
      const ranges = recomputeSlices(n)
      expect(ranges[0]![0]).toBe('')
      expect(ranges[ranges.length - 1]![1]).toBe('\u{10ffff}')
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1])
      for (const address of [addressOf(0), '0x' + 'f'.repeat(40), '0x7' + '0'.repeat(39), '0x80' + '1'.repeat(38)]) {
        expect(ranges.filter(([lo, hi]) => address >= lo && address < hi), `${address} in ${n} slices`).toHaveLength(1)
      }
    }
    expect(recomputeSlices(8)).toHaveLength(9)
    expect(recomputeSlices(8)[0]).toEqual(['', '0x08'])
  })
})
