import type { TechnicalAnalysis } from '../shared/technical-analysis.js'
import { latestMacd } from './macd.js'
import { latestPivots, type PivotInput } from './pivots.js'
import { latestRsi } from './rsi.js'
import { latestSma } from './sma.js'

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

export type IndicatorValues = Pick<TechnicalAnalysis, 'pivotPoints' | 'ma50' | 'ma100' | 'ma200' | 'rsi' | 'macd'>

/** The indicators of section 2.6; each one null when the series is too short for it. */
export function computeIndicatorValues(closes: readonly number[], lastCandles: readonly PivotInput[]): IndicatorValues {
  return {
    pivotPoints: latestPivots(lastCandles),
    ma50: latestSma(closes, 50),
    ma100: latestSma(closes, 100),
    ma200: latestSma(closes, 200),
    rsi: latestRsi(closes),
    macd: latestMacd(closes),
  }
}

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
