import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // A run's sums were written on every pair it folded, to be added up by wallet; a run now
    // adds them up by wallet as it folds (shared/smart-money/positions-sql.ts) and writes
    // them once, on the row of the wallet's first pair (empty on the others): one tuple per
    // window (STAT_WINDOWS order) of the trades of the swaps it folded, the legs' outcomes
    // and the tokens it brought into the window. A late swap is placed against the last
    // leg's time (run-changes.ts), so the leg's full key is no longer kept.
    `ALTER TABLE ${t.legacyWalletPositions} DROP COLUMN IF EXISTS last_key, DROP COLUMN IF EXISTS entered,
      DROP COLUMN IF EXISTS realized_pnl_usd, DROP COLUMN IF EXISTS closed_cost_usd,
      DROP COLUMN IF EXISTS matched_proceeds_usd, DROP COLUMN IF EXISTS unmatched_proceeds_usd,
      DROP COLUMN IF EXISTS positions_reduced, DROP COLUMN IF EXISTS positions_won,
      ADD COLUMN IF NOT EXISTS wallet_sums Array(Tuple(
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
        last_trade Nullable(${DT})))`,
    // Marks are now compared as 45-byte keys (pair-fold-sql.ts legOrderKeyOfMs), not hex
    // text: no run may continue from positions and marks stored with the old keys, so the
    // next run is a full one (a run without positions_since has nothing to continue from).
    `ALTER TABLE ${t.walletStatsRuns} UPDATE positions_since = NULL WHERE positions_since IS NOT NULL SETTINGS mutations_sync = 2`,
  ]
}

/** Each wallet's sums of a run written once, on its first pair's row, rather than on every pair. */
export const walletSumsOnPositions: Migration = {
  version: 17,
  name: 'wallet_sums_on_positions',
  statements,
  // A cluster is created at the current layout: its positions table is migration 21's.
  cluster: { statements: (t) => statements(t).filter((sql) => !sql.includes(t.legacyWalletPositions)), run: false },
}
