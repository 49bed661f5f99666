import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // The positions with each (wallet, token) as 20 raw bytes (shared/smart-money/position-keys.ts)
    // and the pair's hash, which the carried lookup tests the touched pairs by (hashing every
    // row's pair at each run cost 0.1 s of its 0.65); otherwise as wallet_positions was after
    // migrations 10, 17 and 20.
    `CREATE TABLE IF NOT EXISTS ${t.walletPositions} (
      wallet_address FixedString(20),
      token FixedString(20),
      pair_hash UInt64 MATERIALIZED cityHash64(wallet_address, token),
      quantity UInt256,
      cost_usd Float64,
      last_timestamp ${DT},
      wallet_sums Array(Tuple(
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
        last_trade Nullable(${DT}))),
      computed_at ${DT},
      is_deleted UInt8 DEFAULT 0,
      INDEX computed_at_minmax computed_at TYPE minmax GRANULARITY 1
    ) ENGINE = ReplacingMergeTree(computed_at, is_deleted)
    ORDER BY (wallet_address, token)`,
    // Nothing to continue from in the new table: the next run is a full one.
    `ALTER TABLE ${t.walletStatsRuns} UPDATE positions_since = NULL WHERE positions_since IS NOT NULL SETTINGS mutations_sync = 2`,
  ]
}

/**
 * The carried positions in a new table keyed by raw address bytes; the old one's
 * rows are not moved (the next statistics run is a full one) and it is dropped.
 */
export const binaryPositionKeys: Migration = {
  version: 21,
  name: 'binary_position_keys',
  statements,
  async run(clickhouse, t) {
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${t.legacyWalletPositions}` })
  },
  cluster: { statements, run: false },
}
