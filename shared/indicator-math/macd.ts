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
 * MACD seeds the fast EMA with the first 12 closes, which TA-Lib does not), one close
 * at a time: the slow EMA is seeded with the SMA of closes[0..25], the fast EMA with the
 * SMA of the 12 closes ending at that same bar (closes[14..25]), the signal with the SMA
 * of the first 9 MACD values. `value()` is null before the 34th close (TA-Lib's first
 * output is at index 33).
 */
export class MacdStream {
  private readonly slow = new EMA({ period: MACD_SLOW, values: [], format: exact })
  private readonly fast = new EMA({ period: MACD_FAST, values: [], format: exact })
  private readonly signalEma = new EMA({ period: MACD_SIGNAL, values: [], format: exact })
  private count = 0
  private macd: number | undefined
  private signal: number | undefined

  next(close: number): void {
    const slowValue = this.slow.nextValue(close)
    // The fast EMA starts at closes[14], so its first value (an SMA) lands on bar 25 too.
    const fastValue = this.count >= MACD_SLOW - MACD_FAST ? this.fast.nextValue(close) : undefined
    this.count++
    if (slowValue === undefined || fastValue === undefined) return
    this.macd = fastValue - slowValue
    this.signal = this.signalEma.nextValue(this.macd)
  }

  value(): MacdValue | null {
    const { macd, signal } = this
    if (macd === undefined || signal === undefined) return null
    return { macd, signal, histogram: macd - signal }
  }
}

/** The MACD after the last close (MacdStream fed every close); null with fewer than 34. */
export function latestMacd(closes: ArrayLike<number>): MacdValue | null {
  if (closes.length < MACD_SLOW + MACD_SIGNAL - 1) return null
  const stream = new MacdStream()
  for (let i = 0; i < closes.length; i++) stream.next(closes[i]!)
  return stream.value()
}
