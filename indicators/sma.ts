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
