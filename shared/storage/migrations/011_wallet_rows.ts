import { SWAP_INSERT_COLUMNS, walletRowsDdl, walletRowsViewDdl } from '../schema/swaps-schema.js'
import type { Migration } from './migration.js'

/**
 * The wallet access path holds whole rows (swap_rows_by_wallet, see schema/swaps-schema.ts)
 * instead of keys (swaps_by_wallet): a wallet's page is one read instead of keys, then the
 * rows by key from swaps_by_time scattered over the whole range.
 *
 * The data step fills the new table from swaps_by_time (every version and tombstone, as the
 * view would have written them; its view already takes new inserts), then drops the old
 * table and its view. Re-running it after a crash inserts rows again, which collapse (same
 * key, same version). A cluster is created at the current layout.
 */
export const walletRows: Migration = {
  version: 11,
  name: 'wallet_rows',
  statements: (t) => [walletRowsDdl(t), walletRowsViewDdl(t)],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    const rs = await clickhouse.query({ query: `EXISTS TABLE ${t.legacySwapsByWallet}`, format: 'JSONEachRow' })
    const [row] = await rs.json<{ result: number }>()
    if (Number(row?.result ?? 0) === 0) return
    const columns = SWAP_INSERT_COLUMNS.join(', ')
    await clickhouse.command({ query: `INSERT INTO ${t.swapsByWallet} (${columns}, is_deleted) SELECT ${columns}, is_deleted FROM ${t.swaps}` })
    await clickhouse.command({ query: `DROP VIEW IF EXISTS ${t.database}.mv_swaps_by_wallet` })
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${t.legacySwapsByWallet}` })
  },
}
