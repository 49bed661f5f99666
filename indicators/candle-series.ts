import type { ClickHouseClient } from '../shared/clickhouse.js'
import { CANDLE_MS, CANDLES_PER_DAY, candlesSql, dateTime64Param } from '../shared/candles.js'
import { refreshCandles } from '../shared/candle-refresh.js'
import type { Tables } from '../shared/tables.js'
import type { IndicatorSeries } from './compute-indicators.js'
import type { PivotInput } from '../shared/indicator-math/pivots.js'

/** The last six candles of a token, newest first: [-bucket, close, high, low, volume]. */
type Tail = Array<[number | string, number, number, number, number]>
/**
 * One row as it comes over the wire: token; its buckets (just [first] when the
 * candles are contiguous); its closes as base64 of their little-endian Float64 bytes;
 * its last six candles.
 */
type WireRow = [string, number[], string, Tail]

export interface TokenSeries extends IndicatorSeries {
  contractAddress: string
}

export interface SeriesOptions {
  now: number
  /** One token only; otherwise every token, in `slices` slices of the address space. */
  token?: string
  /** How many queries a full recompute is split into (by address range); default 8. */
  slices?: number
}

/**
 * Every token's closed candles (or one token's), grouped per token inside ClickHouse:
 * all bucket starts and closes (the RSI and MACD run over the whole history) and only
 * the last six candles' high, low and volume (the pivots).
 *
 * A full recompute runs one query per slice of the address space, the next one
 * already running in ClickHouse while JavaScript computes and writes the previous
 * slice, so the two overlap; each slice's prices and tokens are read by primary key.
 * The closes travel as the base64 of their raw Float64 bytes: exact, and far cheaper
 * to produce and decode than shortest-decimal text, which was the largest cost of a
 * full recompute (ClickHouse runs little-endian on all its platforms).
 */
export async function forEachClosedSeries(
  clickhouse: ClickHouseClient,
  tables: Tables,
  options: SeriesOptions,
  onSlice: (series: TokenSeries[]) => Promise<void>,
): Promise<void> {
  // The stored candles first take in every bucket marked changed (the token's, or all).
  await refreshCandles(clickhouse, tables, options.token === undefined ? {} : { token: options.token })
  const lastClosedBucket = Math.floor(options.now / CANDLE_MS) - 1
  const before = dateTime64Param((lastClosedBucket + 1) * CANDLE_MS)
  if (options.token !== undefined) {
    const series = await fetchSeries(clickhouse, tables, 'token', { before, token: options.token }, lastClosedBucket)
    if (series.length > 0) await onSlice(series)
    return
  }
  const ranges = addressRanges(options.slices ?? 8)
  const fetch = (i: number) =>
    fetchSeries(clickhouse, tables, 'range', { before, lo: ranges[i]![0], hi: ranges[i]![1] }, lastClosedBucket)
  let next = fetch(0)
  for (let i = 0; i < ranges.length; i++) {
    const series = await next
    if (i + 1 < ranges.length) {
      next = fetch(i + 1)
      next.catch(() => undefined) // surfaced when awaited; never an unhandled rejection meanwhile
    }
    if (series.length > 0) await onSlice(series)
  }
}

/** [lo, hi) ranges of lower-case addresses ("0x" + hex), by their leading hex digits. */
export function addressRanges(slices: number): Array<[string, string]> {
  const n = Math.min(Math.max(1, Math.floor(slices)), 256)
  const bound = (i: number) => '0x' + Math.floor((i * 256) / n).toString(16).padStart(2, '0')
  return Array.from({ length: n }, (_, i): [string, string] => [i === 0 ? '' : bound(i), i === n - 1 ? '\u{10ffff}' : bound(i + 1)])
}

async function fetchSeries(
  clickhouse: ClickHouseClient,
  tables: Tables,
  filter: 'token' | 'range',
  params: Record<string, string>,
  lastClosedBucket: number,
): Promise<TokenSeries[]> {
  const rs = await clickhouse.query({
    query: `
      SELECT token, if(length(b) = b[-1] - b[1] + 1, [b[1]], b) AS buckets,
             base64Encode(arrayStringConcat(arrayMap(x -> reinterpretAsFixedString(x), c))) AS closes,
             tail
      FROM (
        SELECT token,
               arraySort(groupArray(bucket)) AS b,
               arraySort((close, bucket) -> bucket, groupArray(close), groupArray(bucket)) AS c,
               groupArraySorted(${CANDLES_PER_DAY})((-toInt64(bucket), close, high, low, volume)) AS tail
        FROM (${candlesSql(tables, filter)})
        GROUP BY token
      )`,
    query_params: params,
    format: 'JSONCompactEachRow',
  })
  const rows = await rs.json<WireRow>()
  return rows.map((row) => toSeries(row, lastClosedBucket))
}

function decodeCloses(token: string, base64: string): Float64Array {
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.length % 8 !== 0) throw new Error(`closes of ${token}: ${bytes.length} bytes is not a whole number of Float64`)
  // Copied into a fresh, 8-byte aligned buffer: Buffer.from may return a pooled slice.
  const aligned = new Uint8Array(bytes.length)
  aligned.set(bytes)
  return new Float64Array(aligned.buffer)
}

/** Decodes a row and fills its gaps: the closes of the regular grid up to the last closed bucket. */
export function toSeries([contractAddress, wireBuckets, wireCloses, tail]: WireRow, lastClosedBucket: number): TokenSeries {
  const closes = decodeCloses(contractAddress, wireCloses)
  const first = wireBuckets[0]!
  const contiguous = wireBuckets.length === 1
  const filled = new Array<number>(lastClosedBucket - first + 1)
  let at = 0
  for (let b = first; b <= lastClosedBucket; b++) {
    const bucketAt = contiguous ? first + at : wireBuckets[at]
    if (at < closes.length && bucketAt === b) {
      filled[b - first] = closes[at]!
      at++
    } else {
      filled[b - first] = filled[b - first - 1]!
    }
  }
  const lastCandles: PivotInput[] = []
  for (let b = Math.max(first, lastClosedBucket - CANDLES_PER_DAY + 1); b <= lastClosedBucket; b++) {
    const candle = tail.find((c) => -Number(c[0]) === b)
    const close = filled[b - first]!
    lastCandles.push(
      candle ? { high: candle[2], low: candle[3], close: candle[1], volume: candle[4] } : { high: close, low: close, close, volume: 0 },
    )
  }
  return { contractAddress, closes: filled, lastCandles, lastCandleTime: lastClosedBucket * CANDLE_MS }
}
