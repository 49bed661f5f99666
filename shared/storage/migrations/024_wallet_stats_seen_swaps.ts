import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

/**
 * The swap rows each statistics run saw stamped after its watermark (shared/smart-money/
 * seen-swaps.ts): the next run takes the rows stamped after that watermark that its
 * predecessor did not see. Only the latest run's rows are read; they are kept a day from
 * when they were recorded (a run's computed_at is the time it was asked for, which may be
 * any). Replaced by migration 25 (kept an hour).
 */
export const walletStatsSeenSwaps: Migration = {
  version: 24,
  name: 'wallet_stats_seen_swaps',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.legacyWalletStatsSeenSwaps} (
      computed_at ${DT},
      timestamp ${DT},
      hash String,
      chain_id UInt32,
      ingested_at ${DT},
      recorded_at DateTime DEFAULT now()
    ) ENGINE = MergeTree
    ORDER BY (computed_at, timestamp, hash)
    TTL recorded_at + INTERVAL 1 DAY`,
  ],
  // A cluster is created at the current layout: migration 26's table instead.
  cluster: { statements: () => [], run: false },
}
