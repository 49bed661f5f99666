import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // A run's sums were written on every pair it folded, to be added up by wallet; a run now
    // adds them up by wallet as it folds (shared/wallet-stats/positions-sql.ts) and writes
    // them once, on the row of the wallet's first pair (empty arrays on the others): per
    // window, the legs' outcomes (the arrays kept), the tokens it brought into the window
    // and the trades of the swaps it folded. A late swap is placed against the last leg's
    // time (run-changes.ts), so the leg's full key is no longer kept.
    `ALTER TABLE ${t.walletPositions} DROP COLUMN IF EXISTS last_key, DROP COLUMN IF EXISTS entered,
      ADD COLUMN IF NOT EXISTS tokens_traded Array(UInt64),
      ADD COLUMN IF NOT EXISTS trades Array(UInt64),
      ADD COLUMN IF NOT EXISTS trades_without_usd Array(UInt64),
      ADD COLUMN IF NOT EXISTS volume_usd Array(Float64),
      ADD COLUMN IF NOT EXISTS first_trade Array(Nullable(${DT})),
      ADD COLUMN IF NOT EXISTS last_trade Array(Nullable(${DT}))`,
    // Marks are now compared as 45-byte keys (pair-fold-sql.ts legOrderKeyOfMs), not hex
    // text: no run may continue from positions and marks stored with the old keys, so the
    // next run is a full one (a run without positions_since has nothing to continue from).
    `ALTER TABLE ${t.walletStatsRuns} UPDATE positions_since = NULL WHERE positions_since IS NOT NULL SETTINGS mutations_sync = 2`,
  ]
}

/** Each wallet's sums of a run written once, on its first pair's row, rather than on every pair (issue 13). */
export const walletSumsOnPositions: Migration = { version: 17, name: 'wallet_sums_on_positions', statements }
