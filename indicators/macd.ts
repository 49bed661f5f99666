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
 * index 33). The three EMAs are fed one close at a time: no intermediate arrays.
 */
export function latestMacd(closes: ArrayLike<number>): MacdValue | null {
  if (closes.length < MACD_SLOW + MACD_SIGNAL - 1) return null
  const slow = new EMA({ period: MACD_SLOW, values: [], format: exact })
  const fast = new EMA({ period: MACD_FAST, values: [], format: exact })
  const signalEma = new EMA({ period: MACD_SIGNAL, values: [], format: exact })
  let macd: number | undefined
  let signal: number | undefined
  for (let i = 0; i < closes.length; i++) {
    const close = closes[i]!
    const slowValue = slow.nextValue(close)
    // The fast EMA starts at closes[14], so its first value (an SMA) lands on bar 25 too.
    const fastValue = i >= MACD_SLOW - MACD_FAST ? fast.nextValue(close) : undefined
    if (slowValue === undefined || fastValue === undefined) continue
    macd = fastValue - slowValue
    signal = signalEma.nextValue(macd)
  }
  if (macd === undefined || signal === undefined) return null
  return { macd, signal, histogram: macd - signal }
}
