import type { Tables } from '../tables.js'
import { HOUR_MS } from '../../platform/time-units.js'

/**
 * Stored candles, declared once. One-hour candles per token, re-aggregated from the
 * deduplicated raw rows only for the (token, hour) buckets that changed; 4-hour candles
 * (and any coarser interval) are derived from them exactly: open = first hour's open,
 * close = last hour's close, high = max, low = min, volume = sum.
 *
 * Which buckets changed is written by materialized views inside the very inserts that
 * change them (swap legs, prices, token metadata), so a mark cannot be lost between a
 * stored row and its candle: shared/candles/candle-refresh.ts reads the marks and re-aggregates.
 */

/** The hour a token-wide mark names: every hour of the token (its decimals changed). */
export const ALL_HOURS = 4_294_967_295

const hourOf = (ts: string) => `toUInt32(intDiv(toUnixTimestamp64Milli(${ts}), ${HOUR_MS}))`

export const SWAP_CANDLE_MARKS_VIEW = 'mv_candle_marks_swaps'

/** The marks of the swaps' buckets, written by every insert into the token path (either leg). */
export function swapCandleMarksViewDdl(t: Tables): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SWAP_CANDLE_MARKS_VIEW} TO ${t.candleMarks} AS
      SELECT DISTINCT token_address AS token, ${hourOf('timestamp')} AS hour FROM ${t.swapLegs}`
}

export function candlesSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.candles1h} (
      token String,
      hour UInt32,
      open Float64,
      high Float64,
      low Float64,
      close Float64,
      volume Float64,
      computed_at DateTime64(3, 'UTC'),
      is_deleted UInt8 DEFAULT 0
    ) ENGINE = ReplacingMergeTree(computed_at, is_deleted)
    ORDER BY (token, hour)`,

    `CREATE TABLE IF NOT EXISTS ${t.candleMarks} (
      token String,
      hour UInt32,
      marked_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree
    ORDER BY (marked_at, token)
    TTL toDateTime(marked_at) + INTERVAL 7 DAY`,

    `CREATE TABLE IF NOT EXISTS ${t.candleRefreshState} (
      name String,
      marks_until DateTime64(3, 'UTC'),
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY name`,

    swapCandleMarksViewDdl(t),

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_candle_marks_prices TO ${t.candleMarks} AS
      SELECT DISTINCT contract_address AS token, ${hourOf('timestamp')} AS hour FROM ${t.prices}`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_candle_marks_tokens TO ${t.candleMarks} AS
      SELECT DISTINCT contract_address AS token, toUInt32(${ALL_HOURS}) AS hour FROM ${t.tokens}`,
  ]
}
