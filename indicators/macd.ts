import { EMA } from 'technicalindicators'

export const MACD_FAST = 12
export const MACD_SLOW = 26
export const MACD_SIGNAL = 9
const exact = (v: number) => v

export interface MacdValue {
  macd: number
  signal: number
  histogram: number
}

/**
 * MACD 12/26/9 with TA-Lib's seeding, composed from technicalindicators' EMA (its own
 * MACD seeds the fast EMA with the first 12 closes, which TA-Lib does not):
 * the slow EMA is seeded with the SMA of closes[0..25], the fast EMA with the SMA of
 * the 12 closes ending at that same bar (closes[14..25]), the signal with the SMA of
 * the first 9 MACD values. Null with fewer than 34 closes (TA-Lib's first output is at
 * index 33).
 */
export function latestMacd(closes: readonly number[]): MacdValue | null {
  if (closes.length < MACD_SLOW + MACD_SIGNAL - 1) return null
  const slow = EMA.calculate({ period: MACD_SLOW, values: closes as number[], format: exact })
  const fast = EMA.calculate({
    period: MACD_FAST,
    values: closes.slice(MACD_SLOW - MACD_FAST),
    format: exact,
  })
  // Both series start at bar 25: slow[i] and fast[i] belong to the same bar.
  const line = slow.map((s, i) => fast[i]! - s)
  const signals = EMA.calculate({ period: MACD_SIGNAL, values: line, format: exact })
  const macd = line[line.length - 1]
  const signal = signals[signals.length - 1]
  if (macd === undefined || signal === undefined) return null
  return { macd, signal, histogram: macd - signal }
}
