import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
    // One generation's wallets are written in one insert, before its row in
    // tracked_wallet_sets: a generation with a row there is complete.
    `CREATE TABLE IF NOT EXISTS ${t.trackedWallets} (
      generation UInt64,
      wallet_address String
    ) ENGINE = MergeTree
    ORDER BY (generation, wallet_address)`,
    `CREATE TABLE IF NOT EXISTS ${t.trackedWalletSets} (
      generation UInt64,
      wallets UInt64,
      run_computed_at Nullable(${DT}),
      published_at ${DT}
    ) ENGINE = MergeTree
    ORDER BY generation`,
  ]
}

/** The tracked set the interface's reads serve with SERVED_WALLETS=tracked (shared/smart-money/tracked-generations.ts). */
export const trackedWallets: Migration = { version: 14, name: 'tracked_wallets', statements }
