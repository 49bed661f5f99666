import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // One row per (window, wallet) and run: FINAL keeps the latest run's row; a wallet the
    // latest run did not see (all its swaps retracted) keeps an older row, which readers
    // skip by asking for the latest run's computed_at.
    `CREATE TABLE IF NOT EXISTS ${t.walletStats} (
      wallet_address String,
      window LowCardinality(String),
      trades UInt64,
      trades_without_usd UInt64,
      volume_usd Float64,
      matched_proceeds_usd Float64,
      unmatched_proceeds_usd Float64,
      closed_cost_usd Float64,
      realized_pnl_usd Float64,
      positions_reduced UInt64,
      positions_won UInt64,
      tokens_traded UInt64,
      first_trade Nullable(${DT}),
      last_trade Nullable(${DT}),
      unrealized_pnl_usd Float64,
      open_positions UInt64,
      computed_at ${DT}
    ) ENGINE = ReplacingMergeTree(computed_at)
    ORDER BY (window, wallet_address)`,
    `CREATE TABLE IF NOT EXISTS ${t.walletStatsRuns} (
      computed_at ${DT},
      as_of ${DT},
      swaps_ingested_until Nullable(${DT}),
      wallets UInt64,
      duration_ms UInt64
    ) ENGINE = MergeTree
    ORDER BY computed_at`,
  ]
}

/** Wallet statistics (shared/smart-money/), stored by the indicators role's refresher. */
export const walletStats: Migration = { version: 8, name: 'wallet_stats', statements }
