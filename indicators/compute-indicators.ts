import { computeIndicatorValues } from '../shared/indicator-math/indicator-values.js'
import type { PivotInput } from '../shared/indicator-math/pivots.js'
import type { TechnicalAnalysis } from '../shared/technical-analysis.js'

export { computeIndicatorValues, type IndicatorValues } from '../shared/indicator-math/indicator-values.js'

/** A token's closed 4-hour series on a regular grid, as the engine hands it over. */
export interface IndicatorSeries {
  /** Every closed candle's close, oldest first, gaps filled. */
  closes: number[]
  /** The last (up to six) closed candles, oldest first, for the pivot points. */
  lastCandles: PivotInput[]
  /** Start (ms) of the last closed candle. */
  lastCandleTime: number
}

export type TokenMeta = TechnicalAnalysis['token']

/** The cached result of one token (the JSON of shared/technical-analysis.ts). */
export function computeTechnicalAnalysis(series: IndicatorSeries, token: TokenMeta, computedAt: Date): TechnicalAnalysis {
  return {
    ...computeIndicatorValues(series.closes, series.lastCandles),
    timestamp: computedAt.toISOString(),
    token,
    candleTime: series.lastCandleTime,
    candleCount: series.closes.length,
  }
}
