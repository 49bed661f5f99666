import type { Tables } from '../../shared/storage/tables.js'
import type { TableRows } from './batch-writer.js'
import { validateRecords } from './validate-records.js'

/**
 * Swap retractions as rows of the log of retracted versions (swap_moves): its view
 * (mv_move_tombstones) writes a tombstone (is_deleted = 1, a newer ingested_at) into
 * swaps_by_time, whose views carry it into the wallet and token access paths and the
 * change feed (a swap change at the retracted time). The same path as a swap re-delivered
 * at another time, so a retraction is exactly as exact.
 */
export function swapRetractionRows(records: readonly unknown[], tables: Tables, now: number) {
  const { valid, rejected } = validateRecords('swap_retraction', records)
  const rows = valid.map((r) => ({
    hash: r.hash,
    chain_id: r.chain_id,
    timestamp: r.timestamp,
    wallet_address: r.wallet_address,
    token_sold_address: r.token_sold_address,
    token_bought_address: r.token_bought_address,
    superseded_at: now,
  }))
  const tableRows: TableRows = { table: tables.swapMoves, rows }
  return { rows: tableRows, accepted: rows.length, rejected }
}
