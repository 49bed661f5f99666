import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

function statements(t: Tables): string[] {
  return [
    // A wallet's open positions are valued when read (shared/smart-money/open-positions.ts),
    // no longer by every run for every wallet.
    `ALTER TABLE ${t.walletStats} DROP COLUMN IF EXISTS unrealized_pnl_usd, DROP COLUMN IF EXISTS open_positions`,
  ]
}

/** Open positions valued by the readers, not stored by the statistics runs. */
export const openPositionsWhenRead: Migration = { version: 18, name: 'open_positions_when_read', statements }
