import type { ClickHouseClient } from '../clickhouse.js'
import {
  MOVE_TOMBSTONES_VIEW,
  moveTombstonesViewDdl,
  sameTimeTombstonesViewDdl,
  SWAP_MOVES_SAME_TIME,
  SWAP_MOVES_VIEW,
  SWAP_ROWS_VIEW,
  swapLocationsDdl,
  swapMovesViewDdl,
  swapRowsViewDdl,
  swapVersionsDdl,
} from '../schema/swaps-schema.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'
import { tableFacts } from './table-facts.js'

const VERSIONS_VIEW = 'mv_swap_versions'
/** How far back the catch-up copy reaches before the newest row copied: a worker stamps its rows before its insert commits. */
const CATCH_UP_MARGIN = '10 MINUTE'

/**
 * A swap re-delivered at the same time with another wallet or other tokens: its replaced
 * variant's wallet row and token legs are retracted (schema/swaps-schema.ts
 * swapMovesViewDdl), where before they stayed live beside the new ones.
 *
 * The statements give swap_moves its same_time column and re-create the views of the
 * retraction lookup. The data step re-keys swap_locations with the variant in its key, so
 * merges keep every variant (before, one row per time survived a merge): the rows are
 * copied into a new table, which takes the old one's name (EXCHANGE TABLES) while its feed
 * is re-created around the exchange; rows inserted meanwhile reach the old table and are
 * copied again (every row stamped within 10 minutes of the newest copied). Each step can be
 * re-run after a crash. Variants a merge dropped before this migration are not recovered.
 * A cluster is created at the current layout.
 */
export const swapVariants: Migration = {
  version: 13,
  name: 'swap_variants',
  statements: (t) => [
    `ALTER TABLE ${t.swapMoves} ADD COLUMN IF NOT EXISTS ${SWAP_MOVES_SAME_TIME}`,
    `DROP VIEW IF EXISTS ${t.database}.${SWAP_ROWS_VIEW}`,
    swapRowsViewDdl(t),
    `DROP VIEW IF EXISTS ${t.database}.${SWAP_MOVES_VIEW}`,
    swapMovesViewDdl(t),
    `DROP VIEW IF EXISTS ${t.database}.${MOVE_TOMBSTONES_VIEW}`,
    moveTombstonesViewDdl(t),
    ...sameTimeTombstonesViewDdl(t),
  ],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    const previous = `${t.swapLocations}_previous`
    if (!(await keyedByVariant(clickhouse, t, t.swapLocations))) {
      await clickhouse.command({ query: `DROP TABLE IF EXISTS ${previous}` })
      await clickhouse.command({ query: swapLocationsDdl(previous) })
      await clickhouse.command({ query: `INSERT INTO ${previous} SELECT * FROM ${t.swapLocations}` })
      await clickhouse.command({ query: `DROP VIEW IF EXISTS ${t.database}.${VERSIONS_VIEW}` })
      // The new table takes the name; `previous` now holds the old rows.
      await clickhouse.command({ query: `EXCHANGE TABLES ${t.swapLocations} AND ${previous}` })
    }
    for (const query of swapVersionsDdl(t)) await clickhouse.command({ query })
    if ((await tableFacts(clickhouse, t, previous)) !== null) {
      await clickhouse.command({
        query: `INSERT INTO ${t.swapLocations} SELECT * FROM ${previous}
                WHERE ingested_at >= (SELECT max(ingested_at) FROM ${t.swapLocations}) - INTERVAL ${CATCH_UP_MARGIN}`,
      })
      await clickhouse.command({ query: `DROP TABLE ${previous}` })
    }
  },
}

async function keyedByVariant(clickhouse: ClickHouseClient, t: Tables, table: string): Promise<boolean> {
  const facts = await tableFacts(clickhouse, t, table)
  return facts !== null && facts.sorting_key.includes('wallet_address')
}
