import type { TechnicalAnalysis } from '../technical-analysis.js'
import { latestMacd } from './macd.js'
import { latestPivots, type PivotInput } from './pivots.js'
import { latestRsi } from './rsi.js'
import { latestSma } from './sma.js'

export type IndicatorValues = Pick<TechnicalAnalysis, 'pivotPoints' | 'ma50' | 'ma100' | 'ma200' | 'rsi' | 'macd'>

/** The indicators of section 2.6 after the last close; each one null when the series is too short for it. */
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
