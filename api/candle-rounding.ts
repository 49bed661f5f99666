import type { Candle } from '../shared/records/domain.js'
import { roundValue } from './number-rounding.js'

/** A candle as served: prices and volume to 12 significant digits (number-rounding.ts), time untouched. */
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
