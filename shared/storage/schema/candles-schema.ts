import type { Tables } from '../tables.js'

/**
 * Stored candles, declared once. One-hour candles per token, re-aggregated from the
 * deduplicated raw rows only for the (token, hour) buckets that changed; 4-hour candles
 * (and any coarser interval) are derived from them exactly: open = first hour's open,
 * close = last hour's close, high = max, low = min, volume = sum.
 *
 * Which buckets changed is read from the change feed (changes-schema.ts): a swap's legs
 * at its hour, a price at its hour, every hour of a token whose metadata changed
 * (shared/candles/candle-refresh.ts).
 */

/** The hour of a token-wide change: every hour of the token (its decimals changed). */
export const ALL_HOURS = 4_294_967_295

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
  ]
}
