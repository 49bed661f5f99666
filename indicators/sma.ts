import { SMA } from 'technicalindicators'

const exact = (v: number) => v

/**
 * The simple moving average of the last `period` closes (TA-Lib SMA, its last value),
 * or null with fewer than `period` closes. Only the trailing window is handed to
 * technicalindicators: the last SMA depends on nothing else.
 */
export function latestSma(closes: readonly number[], period: number): number | null {
  if (closes.length < period) return null
  const [value] = SMA.calculate({ period, values: closes.slice(-period), format: exact })
  return value ?? null
}
