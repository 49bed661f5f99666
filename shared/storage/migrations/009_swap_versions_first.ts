import { SWAP_LOCATION_INSERT_COLUMNS, SWAP_MOVES_VIEW, swapMovesViewDdl, swapVersionsDdl } from '../schema/swaps-schema.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/**
 * Locations of every delivered version, stored before the version's rows (see
 * schema/swaps-schema.ts): swap_locations is fed by its own entry table instead of
 * through swaps_by_time, and the retraction lookup reads every version it lists.
 *
 * The data step makes an existing store meet that: the location of every row in
 * swaps_by_time is (re)inserted, and a swap that a half-applied insert of the earlier
 * layout left live at two times keeps its latest delivery only (the others are retracted
 * as any move is). Both are safe to re-run. A cluster is created at the current layout.
 */
export const swapVersionsFirst: Migration = {
  version: 9,
  name: 'swap_versions_first',
  statements: (t) => [
    `DROP VIEW IF EXISTS ${t.database}.mv_swap_locations`,
    ...swapVersionsDdl(t),
    `DROP VIEW IF EXISTS ${t.database}.${SWAP_MOVES_VIEW}`,
    swapMovesViewDdl(t),
  ],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    await clickhouse.command({ query: relocateLiveRows(t) })
    await clickhouse.command({ query: retractDoubledSwaps(t) })
  },
}

function relocateLiveRows(t: Tables): string {
  const columns = SWAP_LOCATION_INSERT_COLUMNS
  return `INSERT INTO ${t.swapLocations} (${columns}) SELECT ${columns} FROM ${t.swaps} WHERE is_deleted = 0`
}

/** Every live version of a doubly-live hash but its latest delivery, into the log of retracted versions. */
function retractDoubledSwaps(t: Tables): string {
  return `INSERT INTO ${t.swapMoves}
      (hash, chain_id, timestamp, wallet_address, token_sold_address, token_bought_address, superseded_at)
    SELECT s.hash, s.chain_id, s.timestamp, s.wallet_address, s.token_sold_address, s.token_bought_address,
           greatest(d.keep_at, s.ingested_at) + toIntervalMillisecond(1)
    FROM ${t.swaps} AS s FINAL
    INNER JOIN (
      SELECT hash, chain_id, argMax(timestamp, (ingested_at, timestamp)) AS keep_time, max(ingested_at) AS keep_at
      FROM ${t.swaps} FINAL
      GROUP BY hash, chain_id
      HAVING count() > 1
    ) AS d ON d.hash = s.hash AND d.chain_id = s.chain_id
    WHERE s.timestamp != d.keep_time`
}
