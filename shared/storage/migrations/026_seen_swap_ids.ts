import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'
import { copyRowsAndDrop } from './replaced-table.js'

const DT = "DateTime64(3, 'UTC')"
// A migration keeps the id as it was written then (the statistics' SEEN_ROW_ID).
const SEEN_ROW_ID = 'sipHash128(timestamp, hash, chain_id, ingested_at)'

function statements(t: Tables): string[] {
  return [
    // As migration 25's table (partitioned by the hour recorded, so that expired parts are
    // dropped whole), holding each row's id instead of its key and stamp.
    `CREATE TABLE IF NOT EXISTS ${t.walletStatsSeenSwaps} (
      computed_at ${DT},
      row_id FixedString(16),
      recorded_at DateTime DEFAULT now()
    ) ENGINE = MergeTree
    PARTITION BY toStartOfHour(recorded_at)
    ORDER BY (computed_at, row_id)
    TTL recorded_at + INTERVAL 1 HOUR
    SETTINGS ttl_only_drop_parts = 1`,
  ]
}

/**
 * The swap rows each statistics run saw, kept as their ids (SEEN_ROW_ID, seen-swaps.ts)
 * instead of whole (migration 25): a run records and checks some 300,000 of them at
 * 100,000 swaps a minute, and a set of 16-byte ids is cheaper to build and to probe than
 * one of tuples with a 66-character hash. The upgrade turns the rows of migration 25's table
 * into ids, keeping each one's run and record time, and drops that table (copyRowsAndDrop).
 */
export const seenSwapIds: Migration = {
  version: 26,
  name: 'seen_swap_ids',
  statements,
  run: (clickhouse, t) =>
    copyRowsAndDrop(
      clickhouse,
      t,
      t.hourlyWalletStatsSeenSwaps,
      `INSERT INTO ${t.walletStatsSeenSwaps} (computed_at, row_id, recorded_at)
        SELECT computed_at, ${SEEN_ROW_ID}, recorded_at FROM ${t.hourlyWalletStatsSeenSwaps}`,
    ),
  // A cluster created at migration 25 keeps that table, emptied by its own TTL: the data step drops tables on one node only.
  cluster: { statements, run: false },
}
