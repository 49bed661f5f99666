import type { ClickHouseClient } from './clickhouse.js'
import type { Candle } from './domain.js'
import { refreshCandles } from './candle-refresh.js'
import { dateTime64Param } from './datetime-param.js'

export { dateTime64Param }
import type { Tables } from './tables.js'
import { HOUR_MS } from './time-units.js'

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

/**
 * SQL (a subquery) of the 4-hour candles (or of `intervalMs`, a whole number of hours:
 * 1 hour, 1 day), one row per token and interval that has at least one observation
 * before `{before:DateTime64(3)}`: token, bucket (UInt32: start ms / intervalMs), open,
 * high, low, close, volume, aggregated exactly from the stored one-hour candles
 * (schema/candles-schema.ts; call refreshCandles first to include what was just stored):
 * open = first hour's open, close = last hour's close, high = max, low = min, volume =
 * sum. `token`: only `{token:String}`; `range`: only tokens in [`{lo:String}`,
 * `{hi:String}`) (a slice of the address space, read by the primary key).
 */
export function candlesSql(tables: Tables, filter: 'all' | 'token' | 'range' = 'all', intervalMs = CANDLE_MS): string {
  if (!(intervalMs > 0 && Number.isInteger(intervalMs / HOUR_MS))) {
    throw new Error(`candle interval ${intervalMs} ms is not a whole number of hours`)
  }
  const on =
    filter === 'token' ? 'token = {token:String}' : filter === 'range' ? 'token >= {lo:String} AND token < {hi:String}' : '1'
  return `
    SELECT token, toUInt32(intDiv(hour, ${intervalMs / HOUR_MS})) AS bucket,
      argMin(open, hour) AS open, max(high) AS high, min(low) AS low, argMax(close, hour) AS close, sum(volume) AS volume
    FROM ${tables.candles1h} FINAL
    WHERE hour < intDiv(toUnixTimestamp64Milli({before:DateTime64(3)}), ${HOUR_MS}) AND ${on}
    GROUP BY token, bucket`
}



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
): Promise<Candle[]> {
  await refreshCandles(clickhouse, tables, { token: contractAddress.toLowerCase() })
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
 * The regular grid of `intervalMs` (4 hours by default) from the first candle to
 * `lastTime` (inclusive): an interval without observations gets the previous close as
 * open, high, low and close, and zero volume. Candles after `lastTime` are dropped.
 */
export function fillCandleGaps(candles: readonly Candle[], lastTime: number, intervalMs = CANDLE_MS): Candle[] {
  const filled: Candle[] = []
  let previous: Candle | undefined
  for (const candle of candles) {
    if (candle.time > lastTime) break
    if (previous) {
      for (let t = previous.time + intervalMs; t < candle.time; t += intervalMs) filled.push(flatCandle(t, previous.close))
    }
    filled.push(candle)
    previous = candle
  }
  if (previous) {
    for (let t = previous.time + intervalMs; t <= lastTime; t += intervalMs) filled.push(flatCandle(t, previous.close))
  }
  return filled
}

function flatCandle(time: number, close: number): Candle {
  return { time, open: close, high: close, low: close, close, volume: 0 }
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
): Promise<Candle[]> {
  const lastClosed = lastClosedCandleStart(now, intervalMs)
  const candles = await queryTokenCandles(clickhouse, tables, contractAddress, lastClosed + intervalMs, intervalMs)
  return fillCandleGaps(candles, lastClosed, intervalMs)
}
