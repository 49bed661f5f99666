import type { IndicatorState } from '../shared/indicator-math/indicator-state.js'
import type { TechnicalAnalysis } from '../shared/technical-analysis.js'

export type TokenMeta = TechnicalAnalysis['token']

/** The cached result of one token (the JSON of shared/technical-analysis.ts) after the last candle its state was fed. */
export function technicalAnalysisOf(state: IndicatorState, token: TokenMeta, computedAt: Date): TechnicalAnalysis {
  return {
    ...state.values(),
    timestamp: computedAt.toISOString(),
    token,
    candleTime: state.lastTime,
    candleCount: state.count,
  }
}
