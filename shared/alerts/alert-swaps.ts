import { changeRangeParams, IN_CHANGE_RANGE, type ChangeRange } from '../changes/change-feed.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { listSet } from '../storage/list-param.js'
import { queryRows } from '../storage/query-rows.js'
import { SWAP_READ_LIST, type SwapReadRow } from '../storage/schema/swaps-schema.js'
import type { Tables } from '../storage/tables.js'

/** A stored swap as the alerts read it (and show it as evidence). */
export type AlertSwap = SwapReadRow

/** What identifies a swap to the alerts: a firing depends on these keys. */
export function swapKey(swap: Pick<AlertSwap, 'chain_id' | 'hash'>): string {
  return `${swap.chain_id}:${swap.hash}`
}

/**
 * The swap changes of a feed range: the swaps they stored that are still live (current
 * FINAL rows, so a version retracted since is not among them), and the keys of the swaps
 * a retraction named.
 */
export async function changedSwaps(
  clickhouse: ClickHouseClient,
  t: Tables,
  range: ChangeRange,
): Promise<{ live: AlertSwap[]; retractedKeys: string[] }> {
  const params = changeRangeParams(range)
  const live = await queryRows<AlertSwap>(
    clickhouse,
    `SELECT ${SWAP_READ_LIST} FROM ${t.swaps} FINAL
     WHERE (timestamp, hash, chain_id) IN (
       SELECT timestamp, hash, chain_id FROM ${t.changes} WHERE ${IN_CHANGE_RANGE} AND kind = 'swap' AND is_deleted = 0)
     ORDER BY timestamp, hash, chain_id`,
    params,
  )
  const retracted = await queryRows<{ key: string }>(
    clickhouse,
    `SELECT DISTINCT concat(toString(chain_id), ':', hash) AS key FROM ${t.changes}
     WHERE ${IN_CHANGE_RANGE} AND kind = 'swap' AND is_deleted = 1`,
    params,
  )
  return { live: live.map(typed), retractedKeys: retracted.map((r) => r.key) }
}

/** The live swaps of these hashes, at whatever time their current version is (found through swap_locations). */
export async function liveSwapsOf(clickhouse: ClickHouseClient, t: Tables, hashes: readonly string[]): Promise<AlertSwap[]> {
  if (hashes.length === 0) return []
  const rows = await queryRows<AlertSwap>(
    clickhouse,
    `SELECT ${SWAP_READ_LIST} FROM ${t.swaps} FINAL
     WHERE (timestamp, hash, chain_id) IN (SELECT timestamp, hash, chain_id FROM ${t.swapLocations} WHERE hash IN ${listSet('hashes')})`,
    { hashes: [...new Set(hashes)] },
  )
  return rows.map(typed)
}

/** The live swaps with a leg in `token` in [from, to), by the token path's keys. */
export async function tokenSwapsBetween(clickhouse: ClickHouseClient, t: Tables, token: string, from: number, to: number): Promise<AlertSwap[]> {
  const rows = await queryRows<AlertSwap>(
    clickhouse,
    `SELECT ${SWAP_READ_LIST} FROM ${t.swaps} FINAL
     WHERE timestamp >= {from:DateTime64(3, 'UTC')} AND timestamp < {to:DateTime64(3, 'UTC')}
       AND (timestamp, hash, chain_id) IN (
         SELECT timestamp, hash, chain_id FROM ${t.swapLegs} FINAL
         WHERE token_address = {token:String} AND timestamp >= {from:DateTime64(3, 'UTC')} AND timestamp < {to:DateTime64(3, 'UTC')})
     ORDER BY timestamp, hash, chain_id`,
    { token, from: dateTime64Param(from), to: dateTime64Param(to) },
  )
  return rows.map(typed)
}

function typed(row: AlertSwap): AlertSwap {
  return { ...row, chain_id: Number(row.chain_id), value_usd: row.value_usd === null ? null : Number(row.value_usd) }
}
