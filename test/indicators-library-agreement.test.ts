import { AverageGain, AverageLoss, EMA, SMA } from 'technicalindicators'
import { describe, expect, it } from 'vitest'
import { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'

/** A seeded walk of closes (mulberry32), so a failure names a series that can be rebuilt. */
function closesOf(seed: number, length: number): number[] {
  let a = seed >>> 0
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const closes: number[] = []
  let price = 1 + random() * 3000
  for (let i = 0; i < length; i++) {
    price *= Math.exp((random() - 0.5) * 0.08)
    closes.push(price)
  }
  return closes
}

const last = (values: number[]) => values.at(-1)!
const close = (actual: number | null | undefined, expected: number) =>
  expect(Math.abs((actual ?? NaN) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)))

/**
 * The carried indicator state (shared/candles/indicator-math/indicator-state.ts) computes with the
 * recurrences of `technicalindicators`, in a form whose state can be stored per token: on
 * random series it agrees with the library's own SMA, Wilder averages (RSI) and EMAs
 * (MACD with TA-Lib's alignment, as the engine composed it from the library before).
 */
describe('carried indicator state against technicalindicators', () => {
  for (const [seed, length] of [
    [1, 240],
    [7, 500],
    [42, 2190],
    [99, 201],
  ] as const) {
    it(`series ${seed} (${length} closes)`, () => {
      const closes = closesOf(seed, length)
      const state = IndicatorState.ofCloses(closes)
      for (const period of [50, 100, 200]) close(state.sma(period), last(SMA.calculate({ period, values: closes })))

      const gain = last(AverageGain.calculate({ period: 14, values: closes }))
      const loss = last(AverageLoss.calculate({ period: 14, values: closes }))
      close(state.rsi(), loss === 0 ? 100 : 100 - 100 / (1 + gain / loss))

      const slow = EMA.calculate({ period: 26, values: closes })
      const fast = EMA.calculate({ period: 12, values: closes.slice(14) })
      const macdLine = fast.map((f, k) => f - slow[k]!)
      const signal = last(EMA.calculate({ period: 9, values: macdLine }))
      const macd = state.macd()
      close(macd?.macd, last(macdLine))
      close(macd?.signal, signal)
      close(macd?.histogram, last(macdLine) - signal)
    })
  }
})
