import { SMA } from 'technicalindicators'

const exact = (v: number) => v

/**
 * The simple moving average of the last `period` closes (TA-Lib SMA, its last value),
 * or null with fewer than `period` closes. Only the trailing window is fed to
 * technicalindicators' SMA: the last value depends on nothing else.
 */
export function latestSma(closes: ArrayLike<number>, period: number): number | null {
  if (closes.length < period) return null
  const sma = new SMA({ period, values: [], format: exact })
  let value: number | undefined
  for (let i = closes.length - period; i < closes.length; i++) value = sma.nextValue(closes[i]!)
  return value ?? null
}

/**
 * The same average at every close of a series, in one pass (technicalindicators' SMA
 * keeps a running sum, as TA-Lib does): `next(close)` is the average of the last
 * `period` closes fed so far, null before the `period`-th.
 */
export class SmaStream {
  private readonly sma: SMA

  constructor(period: number) {
    this.sma = new SMA({ period, values: [], format: exact })
  }

  next(close: number): number | null {
    return this.sma.nextValue(close) ?? null
  }
}
