import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, closedCandles, fillCandleGaps, queryTokenCandles } from '../shared/candles/candles.js'
import { addressOf, hashOf, insertPrices, insertSwaps, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const H = 60 * 60 * 1000
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0) // a 4-hour boundary
const priced = addressOf(1)
const weth = addressOf(2) // 18 decimals
const usdc = addressOf(3) // 6 decimals
const unknown = addressOf(4) // no metadata: no price from swaps

describe('4-hour candles from ClickHouse', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertTokens(rt, [
      { address: weth, decimals: 18, symbol: 'WETH' },
      { address: usdc, decimals: 6, symbol: 'USDC' },
    ])
    const prices = [
      { address: priced, time: T0 + 1 * H, price: 10, volume: 100 },
      { address: priced, time: T0 + 30 * 60_000, price: 9, volume: null }, // first by time: open
      { address: priced, time: T0 + 2 * H, price: 14, volume: 50 },
      { address: priced, time: T0 + 3 * H, price: 7, volume: 25 },
      { address: priced, time: T0 + 3 * H + 59 * 60_000, price: 11, volume: 1 }, // last: close
      // next interval is empty (a gap), then one more candle
      { address: priced, time: T0 + 8 * H + 5, price: 12, volume: 2 },
    ]
    await insertPrices(rt, prices)
    await insertPrices(rt, prices) // delivered twice: counted once
    const swaps = [
      // sells 2 WETH for 6,000 USDC worth 6,000 USD: WETH 3,000, USDC 1
      { hash: hashOf(1), time: T0 + H, sold: { address: weth, raw: '2000000000000000000' }, bought: { address: usdc, raw: '6000000000' }, valueUsd: 6000 },
      // WETH 3,100, later in the interval
      { hash: hashOf(2), time: T0 + 2 * H, sold: { address: usdc, raw: '3100000000' }, bought: { address: weth, raw: '1000000000000000000' }, valueUsd: 3100 },
      // no value_usd: no price
      { hash: hashOf(3), time: T0 + 2 * H + 1, sold: { address: weth, raw: '1000000000000000000' }, bought: { address: usdc, raw: '1' }, valueUsd: null },
      // value_usd 0, or a zero amount: no price either
      { hash: hashOf(5), time: T0 + 2 * H + 2, sold: { address: weth, raw: '1000000000000000000' }, bought: { address: usdc, raw: '1' }, valueUsd: 0 },
      { hash: hashOf(6), time: T0 + 2 * H + 3, sold: { address: weth, raw: '0' }, bought: { address: usdc, raw: '0' }, valueUsd: 10 },
      // the other leg has no metadata: only the WETH leg prices (2,900)
      { hash: hashOf(4), time: T0 + 3 * H, sold: { address: weth, raw: '1000000000000000000' }, bought: { address: unknown, raw: '5' }, valueUsd: 2900 },
    ]
    await insertSwaps(rt, swaps)
    await insertSwaps(rt, swaps)
  })
  afterAll(async () => {
    await rt.cleanup()
  })

  it('open is the first price by time, close the last, high and low the extremes, volume the sum', async () => {
    const candles = await queryTokenCandles(rt.clickhouse, rt.tables, priced, T0 + 100 * H)
    expect(candles).toEqual([
      { time: T0, open: 9, high: 14, low: 7, close: 11, volume: 176 },
      { time: T0 + 8 * H, open: 12, high: 12, low: 12, close: 12, volume: 2 },
    ])
  })

  it('prices each swap leg as value_usd over the decimal-adjusted amount, volume value_usd', async () => {
    const wethCandles = await queryTokenCandles(rt.clickhouse, rt.tables, weth, T0 + 100 * H)
    expect(wethCandles).toEqual([{ time: T0, open: 3000, high: 3100, low: 2900, close: 2900, volume: 12_000 }])
    const usdcCandles = await queryTokenCandles(rt.clickhouse, rt.tables, usdc, T0 + 100 * H)
    expect(usdcCandles).toEqual([{ time: T0, open: 1, high: 1, low: 1, close: 1, volume: 9100 }])
  })

  it('a token without decimals gets no price from swaps', async () => {
    expect(await queryTokenCandles(rt.clickhouse, rt.tables, unknown, T0 + 100 * H)).toEqual([])
  })

  it('fills gaps with the previous close and zero volume, up to the last closed interval', async () => {
    const now = T0 + 20 * H + 5 // interval in progress: 20:00
    const candles = await closedCandles(rt.clickhouse, rt.tables, priced, now)
    expect(candles.map((c) => c.time)).toEqual([T0, T0 + 4 * H, T0 + 8 * H, T0 + 12 * H, T0 + 16 * H])
    expect(candles[1]).toEqual({ time: T0 + 4 * H, open: 11, high: 11, low: 11, close: 11, volume: 0 })
    expect(candles[4]).toEqual({ time: T0 + 16 * H, open: 12, high: 12, low: 12, close: 12, volume: 0 })
  })

  it('leaves the interval in progress out', async () => {
    const now = T0 + 8 * H + 10 // the 08:00 candle is still open
    const candles = await closedCandles(rt.clickhouse, rt.tables, priced, now)
    expect(candles.map((c) => c.time)).toEqual([T0, T0 + 4 * H])
  })

  it('breaks ties in time deterministically: a price record before swaps, swaps in a fixed order of their hash', async () => {
    const tie = addressOf(9)
    const t = T0 + 12 * H
    await insertTokens(rt, [{ address: tie, decimals: 0 }])
    await insertSwaps(rt, [
      { hash: hashOf(20), time: t, sold: { address: tie, raw: '1' }, bought: { address: usdc, raw: '1' }, valueUsd: 5 },
      { hash: hashOf(10), time: t, sold: { address: tie, raw: '1' }, bought: { address: usdc, raw: '1' }, valueUsd: 4 },
    ])
    await insertPrices(rt, [{ address: tie, time: t, price: 3 }])
    const [candle] = await queryTokenCandles(rt.clickhouse, rt.tables, tie, T0 + 100 * H)
    expect(candle).toMatchObject({ open: 3, close: 5, high: 5, low: 3 })
  })

  it('fillCandleGaps on nothing is nothing', () => {
    expect(fillCandleGaps([], T0)).toEqual([])
    expect(CANDLE_MS).toBe(4 * H)
  })
})
