import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // One row per (wallet, token) and run that folded it (shared/smart-money/positions-sql.ts):
    // the position after its last leg, that leg's order key, the pair's latest priced leg (the
    // token's mark candidate), and the sums of the legs that run folded, per window as of that
    // run (STAT_WINDOWS order). FINAL keeps a pair's latest run; is_deleted retracts a pair
    // whose every swap was retracted. Rows older than the runs' generation (the latest full
    // run) are ignored, so a full run need not delete anything first.
    `CREATE TABLE IF NOT EXISTS ${t.legacyWalletPositions} (
      wallet_address String,
      token String,
      quantity UInt256,
      cost_usd Float64,
      last_key String,
      last_timestamp ${DT},
      mark_key String,
      mark_price Float64,
      realized_pnl_usd Array(Float64),
      closed_cost_usd Array(Float64),
      matched_proceeds_usd Array(Float64),
      unmatched_proceeds_usd Array(Float64),
      positions_reduced Array(UInt64),
      positions_won Array(UInt64),
      entered Array(UInt8),
      computed_at ${DT},
      is_deleted UInt8 DEFAULT 0,
      INDEX computed_at_minmax computed_at TYPE minmax GRANULARITY 1
    ) ENGINE = ReplacingMergeTree(computed_at, is_deleted)
    ORDER BY (wallet_address, token)`,
    // The live swaps an incremental run folds (its scratch space; emptied at each run's start).
    `CREATE TABLE IF NOT EXISTS ${t.walletRunSwaps} (
      wallet_address String,
      timestamp ${DT},
      hash String,
      chain_id UInt32,
      token_sold_address String,
      token_sold_amount UInt256,
      token_bought_address String,
      token_bought_amount UInt256,
      value_usd Nullable(Float64),
      refold UInt8
    ) ENGINE = MergeTree
    ORDER BY (wallet_address, timestamp)`,
    `ALTER TABLE ${t.walletStatsRuns} ADD COLUMN IF NOT EXISTS kind LowCardinality(String) DEFAULT 'full'`,
    // The computed_at of the full run whose positions the run continued; NULL: no positions (before migration 10).
    `ALTER TABLE ${t.walletStatsRuns} ADD COLUMN IF NOT EXISTS positions_since Nullable(${DT})`,
  ]
}

/** Carried (wallet, token) positions, so that a run after new swaps folds only the pairs they touch. */
export const walletPositions: Migration = {
  version: 10,
  name: 'wallet_positions',
  statements,
  // A cluster is created at the current layout: its positions table is migration 21's.
  cluster: { statements: (t) => statements(t).filter((sql) => !sql.includes(t.legacyWalletPositions)), run: false },
}
