import type { ClickHouseClient } from '../storage/clickhouse.js'
import { IN_CHANGE_RANGE } from '../changes/change-feed.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { addressText, storedAddress, storedAddressSet } from './position-keys.js'
import { SOURCE_COLUMNS } from './positions-sql.js'
import { WINDOW_DAYS } from './windows.js'
import { STAT_WINDOWS } from '../platform/smart-money-settings.js'

/**
 * What an incremental run must fold, found from the swaps that changed since the previous
 * run. Parameters: as_of and previous_as_of, changes_from and changes_to (the previous
 * run's feed position and this run's: changeRangeParams), previous_computed_at,
 * positions_since (the positions' generation), refolded.
 *
 * A changed swap key is one with a `swap` change in that range (a delivery, a tombstone or
 * a same-time variant replaced: shared/storage/schema/changes-schema.ts), or a swap whose
 * time is after the previous run's and not after this one's (it became visible). Every
 * delivered variant of those keys names the pairs they touch.
 */
const DT = "DateTime64(3, 'UTC')"

/**
 * The keys that can touch a pair at or before its carried position's last leg: those with a
 * change in the range at a time not after the previous run's. A late swap, a re-delivery at
 * its old time, and a move or retraction (its tombstone stands at the old time) all leave
 * one; a swap arriving in time (after the previous run's time) does not, so new swaps cost
 * no lookup of their variants.
 */
const LATE_KEYS = (t: Tables) => `(SELECT timestamp, hash, chain_id FROM ${t.changes}
    WHERE kind = 'swap' AND ${IN_CHANGE_RANGE} AND timestamp <= {previous_as_of: ${DT}})`

/**
 * Every delivered variant of the late keys at or before the previous run's time, from
 * swap_locations: a variant replaced at the same time is gone from swaps_by_time once its
 * parts merge, and its wallet and tokens must still be refolded.
 */
const LATE_LOCATIONS = (t: Tables) =>
  `hash IN (SELECT hash FROM ${LATE_KEYS(t)}) AND (timestamp, hash, chain_id) IN ${LATE_KEYS(t)}`

/** The tokens of every delivered variant of the late keys (one column, token): a late key can move their marks back (marks.ts). */
export const lateTokensSql = (t: Tables): string =>
  `SELECT DISTINCT leg AS token FROM ${t.swapLocations} ARRAY JOIN [token_sold_address, token_bought_address] AS leg WHERE ${LATE_LOCATIONS(t)}`

/** Whether any key changed at or before the previous run's time (LATE_KEYS): a late, re-delivered, moved or retracted swap. */
export async function anyLateKeys(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>): Promise<boolean> {
  const [row] = await queryRows<{ late: string }>(clickhouse, `SELECT count() AS late FROM ${LATE_KEYS(t)}`, params)
  return Number(row?.late ?? 0) > 0
}

/**
 * Wallets to refold from their first swap:
 * - a pair touched by a late key (LATE_KEYS) at or before the time of the last leg its
 *   carried position folded (a late swap, a re-delivery, a retraction, a move): its position
 *   is wrong from there on. A key at that very time but after the leg is refolded as well:
 *   refolding is exact whatever the order, and the positions need not keep the leg's key.
 *   Only variants at or before the previous run's time can be (that run folded nothing
 *   later), so swaps arriving in time cost no lookup of the positions, and a run without a
 *   late key (anyLateKeys: `late`) none at all;
 * - a swap leaving a window as the clock moved from the previous run's time to this one's
 *   (its wallet's window sums lose it: they are summed again rather than subtracted from).
 */
export async function walletsToRefold(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, late: boolean): Promise<string[]> {
  const leaving = STAT_WINDOWS.filter((w) => WINDOW_DAYS[w] !== null)
    .map((w) => `(timestamp >= {previous_as_of: ${DT}} - toIntervalDay(${WINDOW_DAYS[w]}) AND timestamp < {as_of: ${DT}} - toIntervalDay(${WINDOW_DAYS[w]}))`)
    .join(' OR ')
  const touchedBeforeTheirLastLeg = `SELECT touched.wallet_address AS wallet_address
      FROM (
        SELECT wallet_address, leg AS token, min(timestamp) AS first_timestamp
        FROM ${t.swapLocations}
        ARRAY JOIN [token_sold_address, token_bought_address] AS leg
        WHERE ${LATE_LOCATIONS(t)}
        GROUP BY wallet_address, token
      ) AS touched
      INNER JOIN (
        SELECT ${addressText('p.wallet_address')} AS wallet, ${addressText('p.token')} AS pair_token, last_timestamp FROM ${t.walletPositions} AS p FINAL
        WHERE computed_at >= {positions_since: ${DT}}
          AND (p.wallet_address, p.token) IN (
            SELECT ${storedAddress('wallet_address')}, ${storedAddress('leg')} FROM ${t.swapLocations}
            ARRAY JOIN [token_sold_address, token_bought_address] AS leg
            WHERE ${LATE_LOCATIONS(t)})
      ) AS carried ON carried.wallet = touched.wallet_address AND carried.pair_token = touched.token
      WHERE touched.first_timestamp <= carried.last_timestamp`
  const leavingWindows = `SELECT wallet_address FROM ${t.swaps} FINAL WHERE ${leaving}`
  const found = late ? [touchedBeforeTheirLastLeg, leavingWindows] : [leavingWindows]
  const rows = await queryRows<{ wallet_address: string }>(
    clickhouse,
    `SELECT DISTINCT wallet_address FROM (${found.join('\n      UNION ALL\n      ')}) ORDER BY wallet_address`,
    params,
  )
  return rows.map((r) => r.wallet_address)
}

/**
 * Fills wallet_run_swaps with what the run folds: the live changed swaps of the wallets
 * continued (refold = 0), and every live swap of the wallets refolded (refold = 1), read
 * from the wallet path as a full run reads them.
 *
 * The live rows of the changed keys are those at a time after the previous run's (a key's
 * time is part of it) and those of the late keys: a changed key at an older time has a row
 * there that the previous run did not take. Without a late key (anyLateKeys: `late`) the
 * first suffice, and the time range alone picks the rows.
 *
 * The refolded wallets' rows are picked by PREWHERE, before FINAL merges them: both columns
 * are of the wallet path's sorting key, so every version of a key passes or fails together
 * and the result is FINAL's, but FINAL then merges only the wallets' rows instead of every
 * row of the granules they share with other wallets (about a third less for the
 * benchmark's 57 refolded wallets).
 */
export async function fillRunSwaps(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, late: boolean): Promise<void> {
  const changed = late ? `(timestamp > {previous_as_of: ${DT}} OR (timestamp, hash, chain_id) IN ${LATE_KEYS(t)})` : `timestamp > {previous_as_of: ${DT}}`
  await clickhouse.command({ query: `TRUNCATE TABLE ${t.walletRunSwaps}` })
  await clickhouse.command({
    query: `INSERT INTO ${t.walletRunSwaps} (${SOURCE_COLUMNS}, refold)
      SELECT ${SOURCE_COLUMNS}, toUInt8(0) FROM ${t.swaps} FINAL
      WHERE ${changed} AND timestamp <= {as_of: ${DT}}
        AND wallet_address NOT IN {refolded: Array(String)}`,
    query_params: params,
  })
  await clickhouse.command({
    query: `INSERT INTO ${t.walletRunSwaps} (${SOURCE_COLUMNS}, refold)
      SELECT ${SOURCE_COLUMNS}, toUInt8(1) FROM ${t.swapsByWallet} FINAL
      PREWHERE wallet_address IN {refolded: Array(String)} AND timestamp <= {as_of: ${DT}}`,
    query_params: params,
  })
}

/** Whether a swap changed after the feed position `position` (the refresher's "anything new?"). */
export async function anySwapChangesSince(clickhouse: ClickHouseClient, t: Tables, position: number): Promise<boolean> {
  const [row] = await queryRows<{ changes: string }>(clickhouse, `SELECT count() AS changes FROM ${t.changes} WHERE kind = 'swap' AND _block_number > {position: UInt64}`, { position })
  return Number(row?.changes ?? 0) > 0
}

/** How many wallets wallet_run_swaps continues (refold = 0). */
export async function continuedWallets(clickhouse: ClickHouseClient, t: Tables): Promise<number> {
  const [row] = await queryRows<{ wallets: string }>(clickhouse, `SELECT uniqExact(wallet_address) AS wallets FROM ${t.walletRunSwaps} WHERE refold = 0`)
  return Number(row?.wallets ?? 0)
}

/** Retracts the stored pairs of the refolded wallets that this run did not write (every swap of theirs is gone). */
export async function retractVanishedPairs(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${t.walletPositions} (wallet_address, token, computed_at, is_deleted)
      SELECT wallet_address, token, {computed_at: ${DT}}, toUInt8(1) FROM ${t.walletPositions} FINAL
      WHERE computed_at >= {positions_since: ${DT}} AND computed_at < {computed_at: ${DT}}
        AND wallet_address IN ${storedAddressSet('refolded')}
        AND (wallet_address, token) NOT IN (
          SELECT wallet_address, token FROM ${t.walletPositions}
          WHERE computed_at = {computed_at: ${DT}} AND wallet_address IN ${storedAddressSet('refolded')})`,
    query_params: params,
  })
}
