import { IndicatorState, type IndicatorValues } from './indicator-state.js'
import type { PivotInput } from './pivots.js'

export interface HistoryCandle extends PivotInput {
  /** Start of the candle, ms since the epoch. */
  time: number
}

export interface IndicatorPoint extends IndicatorValues {
  /** Start (ms) of the candle the values stand at. */
  time: number
}

/**
 * The indicators as they stood at each candle of a regular, gap-filled series (oldest
 * first): point i is what the engine serves after candle i, computed in one pass by the
 * engine's own IndicatorState. Only the points with index in [from, to) are returned;
 * the pass still runs from the first candle, since the RSI and the MACD depend on the
 * whole history.
 */
export function indicatorHistory(candles: readonly HistoryCandle[], from = 0, to = candles.length): IndicatorPoint[] {
  const state = IndicatorState.empty()
  const points: IndicatorPoint[] = []
  const end = Math.min(to, candles.length)
  for (let i = 0; i < end; i++) {
    const c = candles[i]!
    state.push(c.time, c.high, c.low, c.close, c.volume)
    if (i >= from) points.push({ time: c.time, ...state.values() })
  }
  return points
}
