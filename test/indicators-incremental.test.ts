import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshCandles } from '../shared/candles/candle-refresh.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { readTechnicalAnalysis, type TechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { closedChanges, IndicatorEngine } from '../indicators/engine.js'
import { IndicatorStateStore } from '../indicators/indicator-states.js'
import { addressOf, hashOf, insertPrices, insertSwaps, insertTokens, type SwapRow } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { seededFloats as prng } from '../ingest/sample-data/prng.js'

const SEED = 20261123
const START = Date.UTC(2026, 5, 1, 13, 30) // the engine's clock at the first round
const ROUNDS = 6
const TOKENS = Array.from({ length: 8 }, (_, i) => addressOf(0x900 + i))
const QUOTE = addressOf(0x9ff) // the other leg of every swap (no price of its own needed)

describe('incremental indicators equal a full recompute from scratch', () => {
  let rt: TestRuntime
  let redis: Redis
  let now = START
  const clock = () => now
  const deps = () => ({ clickhouse: rt.clickhouse, tables: rt.tables, redis, logger: rt.logger, clock })
  let incremental: IndicatorEngine
  /** What the candle refresher does each tick (indicators/candle-refresher.ts), with its job run at once. */
  const refresherTick = async () => incremental.recomputeTokens(closedChanges(await refreshCandles(rt.clickhouse, rt.tables), now))
  const scratchPrefix = (round: number) => `${rt.config.redis.prefix}:scratch-${round}`

  beforeAll(async () => {
    rt = await createTestRuntime()
    redis = createRedis(rt.config.redis.url)
    incremental = new IndicatorEngine({ ...deps(), redisPrefix: rt.config.redis.prefix }, { batchSize: 3 })
    await insertTokens(rt, [...TOKENS.map((address) => ({ address, decimals: 6 })), { address: QUOTE, decimals: 18 }])
  })
  afterAll(async () => {
    redis.disconnect()
    await rt.cleanup()
  })

  it('after random new, late and re-delivered records, round after round (seeded)', async () => {
    const random = prng(SEED)
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!
    const delivered: { prices: Parameters<typeof insertPrices>[1]; swaps: SwapRow[] } = { prices: [], swaps: [] }
    let swapNumber = 0
    const totals = { stepped: 0, recomputed: 0, undone: 0 }
    const price = new Map(TOKENS.map((t) => [t, 1 + random() * 100]))
    const observation = (address: string, time: number) => {
      const p = price.get(address)! * (1 + (random() - 0.5) / 20)
      price.set(address, p)
      return { address, time, price: p, volume: Math.floor(random() * 1000) }
    }
    const swap = (address: string, time: number): SwapRow => {
      const usd = Math.round(price.get(address)! * 1000) / 100
      return {
        hash: hashOf(0x5000 + swapNumber++),
        time,
        sold: { address, raw: String(10_000 + Math.floor(random() * 1_000_000)) }, // 0.01 to 1 token of 6 decimals
        bought: { address: QUOTE, raw: '1000000000000000000' },
        valueUsd: usd,
      }
    }

    // History before the first round: 0 to 260 intervals per token (the last token starts later).
    const first = lastClosedCandleStart(START)
    for (const [i, address] of TOKENS.entries()) {
      const intervals = i === TOKENS.length - 1 ? 0 : Math.floor(random() * 260)
      const prices = []
      for (let k = intervals; k > 0; k--) if (random() < 0.85) prices.push(observation(address, first - k * CANDLE_MS + 60_000))
      if (prices.length > 0) await insertPrices(rt, prices)
      delivered.prices.push(...prices)
    }
    expect((await incremental.recomputeAll()).written).toBeGreaterThan(0)

    for (let round = 1; round <= ROUNDS; round++) {
      // The interval in progress: most tokens trade in it, some not (a gap); and records sent again exactly as before.
      const inProgress = lastClosedCandleStart(now) + CANDLE_MS
      const prices = TOKENS.filter(() => random() < 0.8).map((address) => observation(address, inProgress + Math.floor(random() * CANDLE_MS)))
      const swaps = TOKENS.filter(() => random() < 0.2).map((address) => swap(address, inProgress + Math.floor(random() * CANDLE_MS)))
      const again = {
        prices: Array.from({ length: Math.floor(random() * 3) }, () => pick(delivered.prices)),
        swaps: delivered.swaps.length > 0 ? Array.from({ length: Math.floor(random() * 2) }, () => pick(delivered.swaps)) : [],
      }
      await insertPrices(rt, [...prices, ...again.prices])
      if (swaps.length + again.swaps.length > 0) await insertSwaps(rt, [...swaps, ...again.swaps])
      delivered.prices.push(...prices)
      delivered.swaps.push(...swaps)
      // The refresher's tick while the interval is in progress (nothing closed changed, unless re-delivered records did).
      await refresherTick()

      now += CANDLE_MS
      const closed = lastClosedCandleStart(now)
      // Late: records in earlier closed intervals, and in the interval just closed.
      const late = TOKENS.filter(() => random() < 0.15).map((address) => observation(address, closed - Math.floor(random() * 40) * CANDLE_MS + 7))
      const lateSwaps = TOKENS.filter(() => random() < 0.1).map((address) => swap(address, closed - Math.floor(random() * 10) * CANDLE_MS + 11))
      if (late.length > 0) await insertPrices(rt, late)
      if (lateSwaps.length > 0) await insertSwaps(rt, lateSwaps)
      delivered.prices.push(...late)
      delivered.swaps.push(...lateSwaps)

      // As the running engine does: sometimes the refresher's recompute of changed tokens
      // comes first, then the scheduled step.
      if (random() < 0.5) await refresherTick()
      const step = await incremental.advance()
      expect(step.stepped + step.recomputed + step.current, `round ${round}`).toBeGreaterThan(0)
      totals.stepped += step.stepped
      totals.recomputed += step.recomputed

      // Late records in the interval that just closed, after the step: the refresher's job
      // takes those tokens' last candle back and feeds it again.
      const lastLate = TOKENS.filter(() => random() < 0.4).map((address) => observation(address, closed + Math.floor(random() * CANDLE_MS)))
      if (lastLate.length > 0) {
        await insertPrices(rt, lastLate)
        delivered.prices.push(...lastLate)
        totals.undone += (await refresherTick()).undone
      }

      // From scratch, under a fresh prefix: no state, no earlier result.
      const fresh = new IndicatorEngine({ ...deps(), redisPrefix: scratchPrefix(round) })
      await fresh.recomputeAll()
      const states = new IndicatorStateStore(redis, rt.config.redis.prefix)
      const freshStates = new IndicatorStateStore(redis, scratchPrefix(round))
      const [carried, scratch] = [await states.read(TOKENS), await freshStates.read(TOKENS)]
      for (const [i, address] of TOKENS.entries()) {
        const expected: TechnicalAnalysis | null = await readTechnicalAnalysis(redis, scratchPrefix(round), address)
        const actual = await readTechnicalAnalysis(redis, rt.config.redis.prefix, address)
        expect(actual, `round ${round}, token ${i}`).toEqual(expected)
        if (expected !== null) expect(actual!.candleTime, `round ${round}, token ${i}`).toBe(closed)
        expect(carried[i]?.toBytes().equals(scratch[i]!.toBytes()) ?? scratch[i] === null, `state of token ${i}, round ${round}`).toBe(true)
      }
    }
    // Every path was taken: tokens stepped from carried state, recomputed after late records, and their last candle taken back.
    expect(totals.stepped).toBeGreaterThan(ROUNDS)
    expect(totals.recomputed).toBeGreaterThan(0)
    expect(totals.undone).toBeGreaterThan(0)
  }, 300_000)
})
