import type { TechnicalAnalysis } from '../technical-analysis.js'

export const PIVOT_CANDLES = 6

export interface PivotInput {
  high: number
  low: number
  close: number
  volume: number
}

/** The pivot points as served (shared/candles/technical-analysis.ts declares their shape). */
export type PivotPoints = NonNullable<TechnicalAnalysis['pivotPoints']>

/** Classic floor pivots from H, L and C. */
export function pivotLevels(high: number, low: number, close: number) {
  const p = (high + low + close) / 3
  return { P: p, R1: 2 * p - low, S1: 2 * p - high, R2: p + (high - low), S2: p - (high - low) }
}

/**
 * Pivot points of the trailing 24 hours: the last six closed 4-hour candles. Null when
 * the token has fewer than six closed candles (less than a day of history).
 */
export function latestPivots(candles: readonly PivotInput[]): PivotPoints | null {
  if (candles.length < PIVOT_CANDLES) return null
  const day = candles.slice(-PIVOT_CANDLES)
  let high = -Infinity
  let low = Infinity
  let volume = 0
  for (const c of day) {
    if (c.high > high) high = c.high
    if (c.low < low) low = c.low
    volume += c.volume
  }
  const close = day[day.length - 1]!.close
  const { P, R1, S1, R2, S2 } = pivotLevels(high, low, close)
  return {
    keyLevel: P,
    Resistance1: R1,
    Support1: S1,
    Resistance2: R2,
    Support2: S2,
    dailyHigh: high,
    dailyLow: low,
    dailyClose: close,
    volume24: volume,
  }
}
