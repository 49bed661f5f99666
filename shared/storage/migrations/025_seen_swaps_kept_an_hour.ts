import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'
import { copyRowsAndDrop } from './replaced-table.js'

const DT = "DateTime64(3, 'UTC')"

/** The columns of the seen swap rows, in both layouts. */
const COLUMNS = 'computed_at, timestamp, hash, chain_id, ingested_at, recorded_at'

function statements(t: Tables): string[] {
  return [
    // Partitioned by the hour the rows were recorded in, a part's rows expire together and the
    // part is dropped whole rather than rewritten without them (ttl_only_drop_parts).
    `CREATE TABLE IF NOT EXISTS ${t.hourlyWalletStatsSeenSwaps} (
      computed_at ${DT},
      timestamp ${DT},
      hash String,
      chain_id UInt32,
      ingested_at ${DT},
      recorded_at DateTime DEFAULT now()
    ) ENGINE = MergeTree
    PARTITION BY toStartOfHour(recorded_at)
    ORDER BY (computed_at, timestamp, hash)
    TTL recorded_at + INTERVAL 1 HOUR
    SETTINGS ttl_only_drop_parts = 1`,
  ]
}

/**
 * The swap rows each statistics run saw (shared/smart-money/seen-swaps.ts) kept an hour
 * instead of a day (migration 24). A run records every row stamped within the settle time
 * before its clock (3 minutes by default), so at a run a minute each row is recorded about
 * three times, and a day of them was three days of ingestion (at the benchmark's 100,000
 * swaps a minute, some 430 million rows), while only the latest run's rows are ever read, by
 * the next run a minute later.
 *
 * A run whose predecessor's rows are gone (no run for an hour) takes those rows again: each
 * is at or before its pair's last folded leg, so its wallet is refolded, as exact as before,
 * or a full run is made; with the default WALLET_STATS_MAX_AGE_MS (an hour) a run after such
 * a pause is a full run anyway. The rows of the last hour are copied from the old table, so
 * the next run after the upgrade still finds its predecessor's; a crash between the copy and
 * the drop copies them again, which changes nothing (they are read as a set). Replaced by
 * migration 26 (the rows' ids).
 */
export const seenSwapsKeptAnHour: Migration = {
  version: 25,
  name: 'seen_swaps_kept_an_hour',
  statements,
  run: (clickhouse, t) =>
    copyRowsAndDrop(
      clickhouse,
      t,
      t.legacyWalletStatsSeenSwaps,
      `INSERT INTO ${t.hourlyWalletStatsSeenSwaps} (${COLUMNS})
        SELECT ${COLUMNS} FROM ${t.legacyWalletStatsSeenSwaps} WHERE recorded_at > now() - INTERVAL 1 HOUR`,
    ),
  // A cluster is created at the current layout (migration 26's table). One created at
  // migration 24 keeps its old table, emptied by its own TTL: the data step drops tables on one node only.
  cluster: { statements: () => [], run: false },
}
