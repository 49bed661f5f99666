import type { ClickHouseClient } from './clickhouse.js'
import type { Candle } from './domain.js'
import { refreshCandles } from './candle-refresh.js'
import type { Tables } from './tables.js'

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

const HOUR_MS = 3_600_000

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

/**
 * SQL (a subquery) of one-hour candles aggregated from the raw rows of the tokens in
 * `{tokens:Array(String)}`, over [`{from:DateTime64(3)}`, `{before:DateTime64(3)}`):
 * token, bucket (hours since the epoch), open, high, low, close, volume. What the stored
 * candles are re-aggregated from (shared/candle-refresh.ts):
 * - each swap with a value_usd (> 0: a price record must be > 0 too) gives one
 *   observation per leg whose token has known decimals and a non-zero amount:
 *   price = value_usd / decimal-adjusted amount, volume = value_usd;
 * - each price record gives price_usd, volume = volume_usd or 0.
 * Re-delivered records are read once (FINAL on the ReplacingMergeTree tables; retracted
 * swaps not at all). Open and close are the first and last price by time; ties in time
 * are broken by the record's key (a price record first, then swaps in the order of a
 * 64-bit hash of their transaction hash and leg: cheaper to carry through the aggregation
 * than the strings), so the result is deterministic. A token's swaps are found through
 * its legs index, not by scanning every swap.
 */
export function rawHourCandlesSql(tables: Tables): string {
  const window = 'timestamp >= {from:DateTime64(3)} AND timestamp < {before:DateTime64(3)}'
  return `
    SELECT
      token,
      toUInt32(intDiv(toUnixTimestamp64Milli(ts), ${HOUR_MS})) AS bucket,
      argMin(price, (ts, tiebreak)) AS open,
      max(price) AS high,
      min(price) AS low,
      argMax(price, (ts, tiebreak)) AS close,
      sum(volume) AS volume
    FROM (
      SELECT contract_address AS token, timestamp AS ts, price_usd AS price,
             ifNull(volume_usd, 0) AS volume, toUInt64(0) AS tiebreak
      FROM ${tables.prices} FINAL
      WHERE contract_address IN {tokens:Array(String)} AND ${window}
      UNION ALL
      SELECT legs.token AS token, legs.ts AS ts,
             legs.usd / (toFloat64(legs.amount) / pow(10, meta.decimals)) AS price,
             legs.usd AS volume, legs.tiebreak AS tiebreak
      FROM (
        SELECT leg.1 AS token, timestamp AS ts, leg.2 AS amount, assumeNotNull(value_usd) AS usd,
               bitOr(cityHash64(hash, leg.3), 1) AS tiebreak
        FROM (
          SELECT timestamp, hash, value_usd, token_sold_address, token_sold_amount,
                 token_bought_address, token_bought_amount
          FROM ${tables.swaps} FINAL
          WHERE value_usd > 0 AND ${window}
            AND (timestamp, hash, chain_id) IN (
              SELECT timestamp, hash, chain_id FROM ${tables.swapLegs} FINAL
              WHERE token_address IN {tokens:Array(String)} AND ${window})
        )
        ARRAY JOIN [(token_sold_address, token_sold_amount, ':sold'),
                    (token_bought_address, token_bought_amount, ':bought')] AS leg
        WHERE leg.2 > 0 AND leg.1 IN {tokens:Array(String)}
      ) AS legs
      INNER JOIN (SELECT contract_address, decimals FROM ${tables.tokens} FINAL
                  WHERE contract_address IN {tokens:Array(String)}) AS meta
        ON meta.contract_address = legs.token
    )
    GROUP BY token, bucket`
}

/** ClickHouse's DateTime64(3) parameter text for a time in ms (UTC). */
export function dateTime64Param(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
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
