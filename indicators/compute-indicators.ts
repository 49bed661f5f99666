import type { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'
import type { TechnicalAnalysis } from '../shared/candles/technical-analysis.js'

export type TokenMeta = TechnicalAnalysis['token']

/**
 * The cached result of one token (the JSON of shared/candles/technical-analysis.ts) after the last
 * candle its state was fed; `timestamp` is when it was computed (ISO 8601). Its fields are
 * listed one by one (an object spread costs several times more, for every token of a
 * full recompute), in the order they have always been serialized in.
 */
export function technicalAnalysisOf(state: IndicatorState, token: TokenMeta, timestamp: string): TechnicalAnalysis {
  const values = state.values()
  return {
    pivotPoints: values.pivotPoints,
    ma50: values.ma50,
    ma100: values.ma100,
    ma200: values.ma200,
    rsi: values.rsi,
    macd: values.macd,
    timestamp,
    token,
    candleTime: state.lastTime,
    candleCount: state.count,
  }
}
