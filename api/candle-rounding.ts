import type { Candle } from '../shared/records/domain.js'

/**
 * Significant digits a served price or volume keeps. The stored values are doubles
 * derived from USD values with cents and decimal-adjusted amounts (a division per
 * observation, a sum per candle), so digits past the 12th are floating-point noise
 * (`89467.47000000002`), not data.
 */
export const SIGNIFICANT_DIGITS = 12

export function roundValue(value: number): number {
  return Number(value.toPrecision(SIGNIFICANT_DIGITS))
}

/** A candle as served: prices and volume to 12 significant digits, time untouched. */
export function roundCandle(candle: Candle): Candle {
  return {
    time: candle.time,
    open: roundValue(candle.open),
    high: roundValue(candle.high),
    low: roundValue(candle.low),
    close: roundValue(candle.close),
    volume: roundValue(candle.volume),
  }
}
