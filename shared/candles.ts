import type { ClickHouseClient } from './clickhouse.js'
import type { Candle } from './domain.js'
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

export function candleStart(ms: number): number {
  return Math.floor(ms / CANDLE_MS) * CANDLE_MS
}

/** Start (ms) of the last closed candle at `now`: the one before the interval in progress. */
export function lastClosedCandleStart(now: number): number {
  return candleStart(now) - CANDLE_MS
}

/**
 * SQL (a subquery) of the candles, one row per token and interval that has at least one
 * observation before `{before:DateTime64(3)}`: token, bucket (UInt32: start ms / CANDLE_MS),
 * open, high, low, close, volume. `token`: only `{token:String}`; `range`: only tokens
 * in [`{lo:String}`, `{hi:String}`) (a slice of the address space; prices and tokens
 * are read by their primary key).
 */
export function candlesSql(tables: Tables, filter: 'all' | 'token' | 'range' = 'all'): string {
  const on = (column: string) =>
    filter === 'token'
      ? `${column} = {token:String}`
      : filter === 'range'
        ? `${column} >= {lo:String} AND ${column} < {hi:String}`
        : '1'
  const priceFilter = `AND ${on('contract_address')}`
  const legFilter = `AND ${on('leg.1')}`
  const tokenFilter = `WHERE ${on('contract_address')}`
  // One token's swaps are found by key through its legs index, not by scanning them all.
  const swapFilter =
    filter === 'token'
      ? `(timestamp, hash, chain_id) IN (SELECT timestamp, hash, chain_id FROM ${tables.swapLegs} FINAL
           WHERE token_address = {token:String} AND timestamp < {before:DateTime64(3)})`
      : `(${on('token_sold_address')} OR ${on('token_bought_address')})`
  return `
    SELECT
      token,
      toUInt32(intDiv(toUnixTimestamp64Milli(ts), ${CANDLE_MS})) AS bucket,
      argMin(price, (ts, tiebreak)) AS open,
      max(price) AS high,
      min(price) AS low,
      argMax(price, (ts, tiebreak)) AS close,
      sum(volume) AS volume
    FROM (
      SELECT contract_address AS token, timestamp AS ts, price_usd AS price,
             ifNull(volume_usd, 0) AS volume, toUInt64(0) AS tiebreak
      FROM ${tables.prices} FINAL
      WHERE timestamp < {before:DateTime64(3)} ${priceFilter}
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
          WHERE value_usd > 0 AND timestamp < {before:DateTime64(3)}
            AND ${swapFilter}
        )
        ARRAY JOIN [(token_sold_address, token_sold_amount, ':sold'),
                    (token_bought_address, token_bought_amount, ':bought')] AS leg
        WHERE leg.2 > 0 ${legFilter}
      ) AS legs
      INNER JOIN (SELECT contract_address, decimals FROM ${tables.tokens} FINAL ${tokenFilter}) AS meta
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

/** One token's candles with an observation, strictly before `before` (ms), oldest first. */
export async function queryTokenCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  contractAddress: string,
  before: number,
): Promise<Candle[]> {
  const rs = await clickhouse.query({
    query: `SELECT bucket, open, high, low, close, volume FROM (${candlesSql(tables, 'token')}) ORDER BY bucket`,
    query_params: { token: contractAddress.toLowerCase(), before: dateTime64Param(before) },
    format: 'JSONEachRow',
  })
  const rows = await rs.json<CandleRow>()
  return rows.map((r) => ({
    time: Number(r.bucket) * CANDLE_MS,
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    volume: r.volume,
  }))
}

/**
 * The regular 4-hour grid from the first candle to `lastTime` (inclusive): an interval
 * without observations gets the previous close as open, high, low and close, and zero
 * volume. Candles after `lastTime` are dropped.
 */
export function fillCandleGaps(candles: readonly Candle[], lastTime: number): Candle[] {
  const filled: Candle[] = []
  let previous: Candle | undefined
  for (const candle of candles) {
    if (candle.time > lastTime) break
    if (previous) {
      for (let t = previous.time + CANDLE_MS; t < candle.time; t += CANDLE_MS) filled.push(flatCandle(t, previous.close))
    }
    filled.push(candle)
    previous = candle
  }
  if (previous) {
    for (let t = previous.time + CANDLE_MS; t <= lastTime; t += CANDLE_MS) filled.push(flatCandle(t, previous.close))
  }
  return filled
}

function flatCandle(time: number, close: number): Candle {
  return { time, open: close, high: close, low: close, close, volume: 0 }
}

/**
 * A token's closed candles, gaps filled, up to the last closed interval at `now`:
 * the series behind its indicators and the candles endpoint.
 */
export async function closedCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  contractAddress: string,
  now: number,
): Promise<Candle[]> {
  const lastClosed = lastClosedCandleStart(now)
  const candles = await queryTokenCandles(clickhouse, tables, contractAddress, lastClosed + CANDLE_MS)
  return fillCandleGaps(candles, lastClosed)
}
