import { SWAP_INSERT_COLUMNS, swapEntryTables, swapsSchemaDdl } from '../schema/swaps-schema.js'
import type { Migration } from './migration.js'

/**
 * Swaps ordered by time, with access paths by hash, wallet and token (see
 * schema/swaps-schema.ts). An existing store is moved by re-inserting the latest version
 * of every swap through the new entry table, then the old table is dropped. Re-running
 * after a crash is harmless: a swap inserted twice is stored once. A cluster has no first
 * layout to move.
 */
export const timeOrderedSwaps: Migration = {
  version: 2,
  name: 'time_ordered_swaps',
  statements: (t) => swapsSchemaDdl(t),
  cluster: { statements: (t) => swapsSchemaDdl(t), run: false },
  async run(clickhouse, t) {
    const rs = await clickhouse.query({
      query: 'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}',
      query_params: { db: t.database, name: t.legacySwaps.slice(t.database.length + 1) },
      format: 'JSONEachRow',
    })
    const [row] = await rs.json<{ n: string | number }>()
    if (Number(row?.n ?? 0) === 0) return
    const columns = SWAP_INSERT_COLUMNS.join(', ')
    for (const entry of swapEntryTables(t)) {
      await clickhouse.command({ query: `INSERT INTO ${entry} (${columns}) SELECT ${columns} FROM ${t.legacySwaps} FINAL` })
    }
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${t.legacySwaps}` })
  },
}
