import type { Tables } from '../tables.js'

/**
 * The stored token flows, declared once: per (token, hour, wallet), what the wallet bought
 * and sold of the token in that hour, re-aggregated from the deduplicated swaps only for
 * the (token, hour) buckets the change feed names (shared/token-flows/token-flows-refresh.ts).
 * A wallet no longer in a bucket (its swap retracted or moved) has its row retracted.
 *
 * - `swaps`: the wallet's swaps with the token on either side (a swap of the token for
 *   itself once); `swaps_without_usd` of them without value_usd.
 * - `buys`/`sells`, `bought_raw`/`sold_raw` (every digit), `bought_usd`/`sold_usd` (a swap
 *   without value_usd adds 0): the swaps with the token bought, sold.
 *
 * Sorted by token then hour, so one token's window is one range (GET /tokens/:address/flows);
 * partitioned by month with a minmax index on the hour, so every token's last hours
 * (GET /smart-money/tokens) skip the older months and most older granules.
 */
export function tokenFlowsSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.tokenWalletHourFlows} (
      token String,
      hour UInt32,
      wallet_address String,
      swaps UInt32,
      swaps_without_usd UInt32,
      buys UInt32,
      sells UInt32,
      bought_raw UInt256,
      sold_raw UInt256,
      bought_usd Float64,
      sold_usd Float64,
      computed_at DateTime64(3, 'UTC'),
      is_deleted UInt8 DEFAULT 0,
      INDEX hour_range hour TYPE minmax GRANULARITY 1
    ) ENGINE = ReplacingMergeTree(computed_at, is_deleted)
    PARTITION BY toYYYYMM(toDateTime(toUInt64(hour) * 3600, 'UTC'))
    ORDER BY (token, hour, wallet_address)`,
  ]
}
