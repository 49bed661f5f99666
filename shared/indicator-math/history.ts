import type { IndicatorValues } from './indicator-values.js'
import { MacdStream } from './macd.js'
import { latestPivots, PIVOT_CANDLES, type PivotInput } from './pivots.js'
import { RsiStream } from './rsi.js'
import { SmaStream } from './sma.js'

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
 * first): point i is what computeIndicatorValues gives on the candles up to i, computed
 * in one pass with the same building blocks (each average, the RSI and the MACD fed one
 * close at a time; the pivots over the six candles ending at i). Only the points with
 * index in [from, to) are returned; the pass still runs from the first candle, since the
 * RSI and the MACD depend on the whole history.
 */
export function indicatorHistory(candles: readonly HistoryCandle[], from = 0, to = candles.length): IndicatorPoint[] {
  const ma50 = new SmaStream(50)
  const ma100 = new SmaStream(100)
  const ma200 = new SmaStream(200)
  const rsi = new RsiStream()
  const macd = new MacdStream()
  const points: IndicatorPoint[] = []
  const end = Math.min(to, candles.length)
  for (let i = 0; i < end; i++) {
    const candle = candles[i]!
    const values = {
      ma50: ma50.next(candle.close),
      ma100: ma100.next(candle.close),
      ma200: ma200.next(candle.close),
    }
    rsi.next(candle.close)
    macd.next(candle.close)
    if (i < from) continue
    points.push({
      time: candle.time,
      pivotPoints: i + 1 >= PIVOT_CANDLES ? latestPivots(candles.slice(i + 1 - PIVOT_CANDLES, i + 1)) : null,
      ...values,
      rsi: rsi.value(),
      macd: macd.value(),
    })
  }
  return points
}
