import type { IndicatorPoint } from '../shared/candles/indicator-math/history.js'

/** One point of GET /technical-analysis/history as served: the section 2.6 indicators at one candle. */
export type IndicatorHistoryRow = ReturnType<typeof indicatorHistoryRow>

export function indicatorHistoryRow(point: IndicatorPoint) {
  return {
    candleTime: new Date(point.time).toISOString(),
    ma50: point.ma50,
    ma100: point.ma100,
    ma200: point.ma200,
    rsi: point.rsi,
    macd: point.macd,
    pivotPoints: point.pivotPoints,
  }
}
