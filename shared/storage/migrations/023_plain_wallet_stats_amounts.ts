import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/** wallet_stats' USD amounts: sums of random prices, which LZ4 left at 1.01–1.3 of their size on the benchmark's store. */
export const PLAIN_WALLET_STATS_AMOUNTS = ['volume_usd', 'matched_proceeds_usd', 'unmatched_proceeds_usd', 'closed_cost_usd', 'realized_pnl_usd'] as const

function statements(t: Tables): string[] {
  return [
    // Every statistics run writes a row per (wallet, window): 400,000 on the benchmark's store.
    // Compressing amounts that do not compress was a tenth of that step; new parts are
    // written plain, stored ones keep LZ4 until they merge.
    `ALTER TABLE ${t.walletStats} ${PLAIN_WALLET_STATS_AMOUNTS.map((c) => `MODIFY COLUMN ${c} Float64 CODEC(NONE)`).join(', ')}`,
  ]
}

/** wallet_stats' USD amounts stored without compression. */
export const plainWalletStatsAmounts: Migration = { version: 23, name: 'plain_wallet_stats_amounts', statements }
