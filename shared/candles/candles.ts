import type { ClickHouseClient } from '../storage/clickhouse.js'
import type { Candle } from '../records/domain.js'
import { refreshCandles } from './candle-refresh.js'
import { dateTime64Param } from '../platform/datetime-param.js'

export { dateTime64Param }
import type { Tables } from '../storage/tables.js'
import { HOUR_MS } from '../platform/time-units.js'

/**
 * 4-hour OHLCV candles, aligned to UTC (00:00, 04:00 ... 20:00), aggregated inside
 * ClickHouse from every price observation of a token:
 * - each swap with a value_usd (> 0: a price record must be > 0 too) gives one
 *   observation per leg whose token has known decimals and a non-zero amount:
 *   price = value_usd / decimal-adjusted amount, volume = value_usd;
 * - each price record gives price_usd, volume = volume_usd or 0.
 * Re-delivered records are read once (FINAL on the ReplacingMergeTree tables). Open and
 * close are the first and last price by time; ties in time are broken by the record's
 * key (a price record first, then swaps in the order of a 64-bit hash of their
 * transaction hash and leg: cheaper to carry through the aggregation than the strings,
 * measured ~25% of its time), so the result is deterministic.
 */
export const CANDLE_MS = 4 * 60 * 60 * 1000
/** How many candles make the trailing 24 hours of the pivot points. */
export const CANDLES_PER_DAY = 6


/** Start (ms) of the candle holding `ms`; `intervalMs` a whole number of hours (4 by default). */
export function candleStart(ms: number, intervalMs = CANDLE_MS): number {
  return Math.floor(ms / intervalMs) * intervalMs
}

/** Start (ms) of the last closed candle at `now`: the one before the interval in progress. */
export function lastClosedCandleStart(now: number, intervalMs = CANDLE_MS): number {
  return candleStart(now, intervalMs) - intervalMs
}

/** Which tokens a candle query reads (see candlesSql). */
export type TokenFilter = 'all' | 'token' | 'range' | 'tokens'

/** The condition on `token` of a TokenFilter, with its query parameters' names. */
export function tokenFilterSql(filter: TokenFilter): string {
  switch (filter) {
    case 'token':
      return 'token = {token:String}'
    case 'range':
      return 'token >= {lo:String} AND token < {hi:String}'
    case 'tokens':
      return 'token IN {tokens:Array(String)}'
    case 'all':
      return '1'
  }
}

/**
 * SQL (a subquery) of the 4-hour candles (or of `intervalMs`, a whole number of hours:
 * 1 hour, 1 day), one row per token and interval that has at least one observation
 * before `{before:DateTime64(3)}`: token, bucket (UInt32: start ms / intervalMs), open,
 * high, low, close, volume, aggregated exactly from the stored one-hour candles
 * (schema/candles-schema.ts; call refreshCandles first to include what was just stored):
 * open = first hour's open, close = last hour's close, high = max, low = min, volume =
 * sum. `token`: only `{token:String}`; `range`: only tokens in [`{lo:String}`,
 * `{hi:String}`) (a slice of the address space, read by the primary key); `tokens`: only
 * `{tokens:Array(String)}`.
 */
export function candlesSql(tables: Tables, filter: TokenFilter = 'all', intervalMs = CANDLE_MS): string {
  if (!(intervalMs > 0 && Number.isInteger(intervalMs / HOUR_MS))) {
    throw new Error(`candle interval ${intervalMs} ms is not a whole number of hours`)
  }
  return `
    SELECT token, toUInt32(intDiv(hour, ${intervalMs / HOUR_MS})) AS bucket,
      argMin(open, hour) AS open, max(high) AS high, min(low) AS low, argMax(close, hour) AS close, sum(volume) AS volume
    FROM ${tables.candles1h} FINAL WHERE ${hoursBeforeSql(filter)}
    GROUP BY token, bucket`
}

/**
 * SQL (a subquery) of the stored one-hour candles of a recent window: the newest version
 * of each (token, hour) from `{from:DateTime64(3)}` to before `{before:DateTime64(3)}`,
 * retracted hours left out; token, hour, open, high, low, close, volume. The tokens as in
 * candlesSql. The newest version is picked by argMax rather than FINAL: the hour
 * condition then prunes rows before anything is merged, whereas FINAL (the key is token
 * first) merges every part's rows of the tokens read.
 */
export function recentHoursSql(tables: Tables, filter: TokenFilter = 'all'): string {
  return `
    SELECT token, hour, v.1 AS open, v.2 AS high, v.3 AS low, v.4 AS close, v.5 AS volume
    FROM (SELECT token, hour, argMax((open, high, low, close, volume, is_deleted), computed_at) AS v
          FROM ${tables.candles1h}
          WHERE ${hoursBeforeSql(filter)} AND hour >= intDiv(toUnixTimestamp64Milli({from:DateTime64(3)}), ${HOUR_MS})
          GROUP BY token, hour)
    WHERE v.6 = 0`
}

/** The condition on the stored hours of the tokens of `filter` before `{before:DateTime64(3)}`. */
export function hoursBeforeSql(filter: TokenFilter): string {
  return `hour < intDiv(toUnixTimestamp64Milli({before:DateTime64(3)}), ${HOUR_MS}) AND ${tokenFilterSql(filter)}`
}



/** Brings a token's stored candles up to date with what ingestion marked (lower-case address). */
export type CandleRefresh = (clickhouse: ClickHouseClient, tables: Tables, token: string) => Promise<unknown>

const refreshTokenCandles: CandleRefresh = (clickhouse, tables, token) => refreshCandles(clickhouse, tables, { token })

interface CandleRow {
  bucket: number
  open: number
  high: number
  low: number
  close: number
  volume: number
}

/**
 * One token's candles (4-hour, or `intervalMs`) with an observation, strictly before
 * `before` (ms), oldest first. Its marked buckets are re-aggregated first, so what was
 * stored a moment ago is in them.
 */
export async function queryTokenCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  contractAddress: string,
  before: number,
  intervalMs = CANDLE_MS,
  refresh: CandleRefresh = refreshTokenCandles,
): Promise<Candle[]> {
  await refresh(clickhouse, tables, contractAddress.toLowerCase())
  const rs = await clickhouse.query({
    query: `SELECT bucket, open, high, low, close, volume FROM (${candlesSql(tables, 'token', intervalMs)}) ORDER BY bucket`,
    query_params: { token: contractAddress.toLowerCase(), before: dateTime64Param(before) },
    format: 'JSONEachRow',
  })
  const rows = await rs.json<CandleRow>()
  return rows.map((r) => ({
    time: Number(r.bucket) * intervalMs,
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    volume: r.volume,
  }))
}

/**
 * Gap filling, the one rule: walks the regular grid of `intervalMs` from `firstTime` to
 * `lastTime` (inclusive) in runs of consecutive intervals, calling `visit(time, index,
 * count)` for the `count` intervals from `time`: either observed ones, the candles at
 * `index` .. `index + count - 1` in `times` (interval starts, ascending), or, with index
 * -1, intervals without observations, which the caller fills with the previous close as
 * open, high, low and close, and zero volume (flatCandle). Times before `firstTime` or
 * after `lastTime` are skipped. Runs rather than single intervals, so that the caller's
 * loop over a run is its own (a 500-candle history without gaps is one call, not 500).
 */
export function walkCandleGrid(
  times: ArrayLike<number>,
  firstTime: number,
  lastTime: number,
  intervalMs: number,
  visit: (time: number, index: number, count: number) => void,
): void {
  let at = 0
  while (at < times.length && times[at]! < firstTime) at++
  let t = firstTime
  while (t <= lastTime) {
    const start = t
    if (at < times.length && times[at] === t) {
      const first = at
      do {
        at++
        t += intervalMs
      } while (t <= lastTime && at < times.length && times[at] === t)
      visit(start, first, at - first)
    } else {
      // Up to the next observed interval when it lies on the grid ahead, else to the end.
      const next = at < times.length ? times[at]! : Infinity
      const toNext = next > t && (next - t) % intervalMs === 0 ? (next - t) / intervalMs : Infinity
      const count = Math.min(Math.floor((lastTime - t) / intervalMs) + 1, toNext)
      t += count * intervalMs
      visit(start, -1, count)
    }
  }
}

/** An interval without observations: the previous close, flat, no volume. */
export function flatCandle(time: number, close: number): Candle {
  return { time, open: close, high: close, low: close, close, volume: 0 }
}

/**
 * The regular grid of `intervalMs` (4 hours by default) from the first candle to
 * `lastTime` (inclusive), gaps filled (walkCandleGrid). Candles after `lastTime` are dropped.
 */
export function fillCandleGaps(candles: readonly Candle[], lastTime: number, intervalMs = CANDLE_MS): Candle[] {
  if (candles.length === 0 || candles[0]!.time > lastTime) return []
  const filled: Candle[] = []
  const times = candles.map((c) => c.time)
  walkCandleGrid(times, candles[0]!.time, lastTime, intervalMs, (time, index, count) => {
    for (let k = 0; k < count; k++) filled.push(index >= 0 ? candles[index + k]! : flatCandle(time + k * intervalMs, filled[filled.length - 1]!.close))
  })
  return filled
}

/**
 * A token's closed candles (4-hour, or `intervalMs`), gaps filled, up to the last closed
 * interval at `now`: the series behind its indicators and the candles endpoint.
 */
export async function closedCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  contractAddress: string,
  now: number,
  intervalMs = CANDLE_MS,
  refresh: CandleRefresh = refreshTokenCandles,
): Promise<Candle[]> {
  const lastClosed = lastClosedCandleStart(now, intervalMs)
  const candles = await queryTokenCandles(clickhouse, tables, contractAddress, lastClosed + intervalMs, intervalMs, refresh)
  return fillCandleGaps(candles, lastClosed, intervalMs)
}
