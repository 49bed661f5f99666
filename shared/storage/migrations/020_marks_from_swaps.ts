import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

function statements(t: Tables): string[] {
  return [
    // Each token's mark is found from the swaps (shared/smart-money/marks.ts), no longer
    // from a candidate carried on every (wallet, token) position.
    `ALTER TABLE ${t.legacyWalletPositions} DROP COLUMN IF EXISTS mark_key, DROP COLUMN IF EXISTS mark_price`,
  ]
}

/** Marks found from the swaps rather than carried on every position. */
export const marksFromSwaps: Migration = {
  version: 20,
  name: 'marks_from_swaps',
  statements,
  // A cluster is created at the current layout: its positions table is migration 21's.
  cluster: { statements: () => [], run: false },
}
