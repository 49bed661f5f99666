import type { ClickHouseClient } from '../shared/clickhouse.js'
import { CANDLE_MS, CANDLES_PER_DAY, candlesSql, dateTime64Param } from '../shared/candles.js'
import type { Tables } from '../shared/tables.js'
import type { IndicatorSeries } from './compute-indicators.js'
import type { PivotInput } from './pivots.js'

/** One row of the series query: token, buckets, closes, and its last six candles [bucket, close, high, low, volume]. */
type SeriesRow = [string, number[], number[], Array<[number, number, number, number, number]>]

export interface TokenSeries extends IndicatorSeries {
  contractAddress: string
}

/**
 * Every token's closed candles in one ClickHouse query (or one token's), grouped per
 * token inside ClickHouse: all bucket starts and closes (the RSI and MACD run over the
 * whole history), and only the last six candles' high, low and volume (the pivots).
 * Rows are streamed, so `onBatch` sees `batchSize` tokens at a time.
 */
export async function streamClosedSeries(
  clickhouse: ClickHouseClient,
  tables: Tables,
  options: { now: number; token?: string; batchSize: number },
  onBatch: (series: TokenSeries[]) => Promise<void>,
): Promise<void> {
  const lastClosedBucket = Math.floor(options.now / CANDLE_MS) - 1
  const rs = await clickhouse.query({
    query: `
      SELECT token, arrayMap(x -> x.1, c) AS buckets, arrayMap(x -> x.2, c) AS closes,
             arraySlice(c, -${CANDLES_PER_DAY}) AS tail
      FROM (
        SELECT token, arraySort(groupArray((bucket, close, high, low, volume))) AS c
        FROM (${candlesSql(tables, options.token !== undefined)})
        GROUP BY token
      )`,
    query_params: {
      before: dateTime64Param((lastClosedBucket + 1) * CANDLE_MS),
      ...(options.token !== undefined ? { token: options.token } : {}),
    },
    format: 'JSONCompactEachRow',
  })
  let batch: TokenSeries[] = []
  for await (const rows of rs.stream()) {
    for (const row of rows) {
      batch.push(toSeries(row.json<SeriesRow>(), lastClosedBucket))
      if (batch.length >= options.batchSize) {
        await onBatch(batch)
        batch = []
      }
    }
  }
  if (batch.length > 0) await onBatch(batch)
}

/** Gap filling on the compact form: the closes of the regular grid up to the last closed bucket. */
export function toSeries([contractAddress, buckets, closes, tail]: SeriesRow, lastClosedBucket: number): TokenSeries {
  const first = buckets[0]!
  const filled = new Array<number>(lastClosedBucket - first + 1)
  let at = 0
  for (let b = first; b <= lastClosedBucket; b++) {
    if (at < buckets.length && buckets[at] === b) {
      filled[b - first] = closes[at]!
      at++
    } else {
      filled[b - first] = filled[b - first - 1]!
    }
  }
  const lastCandles: PivotInput[] = []
  for (let b = Math.max(first, lastClosedBucket - CANDLES_PER_DAY + 1); b <= lastClosedBucket; b++) {
    const candle = tail.find((c) => c[0] === b)
    const close = filled[b - first]!
    lastCandles.push(
      candle ? { high: candle[2], low: candle[3], close: candle[1], volume: candle[4] } : { high: close, low: close, close, volume: 0 },
    )
  }
  return { contractAddress, closes: filled, lastCandles, lastCandleTime: lastClosedBucket * CANDLE_MS }
}
