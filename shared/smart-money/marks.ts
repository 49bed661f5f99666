import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { legOrderKeyOfMs } from './pair-fold-sql.js'
import { addressText } from './position-keys.js'
import { lateTokensSql } from './run-changes.js'
import { runWrite } from './run-write.js'

/**
 * Each token's mark: the price (value_usd / raw amount) of its latest priced leg with an
 * amount, any wallet's, among the live swaps at or before the run's time, legs ordered as
 * the fold orders them (legOrderKeyOfMs). A run stores the marks it sets in
 * wallet_stats_marks; readers value open positions at each token's latest
 * (open-positions.ts).
 *
 * Marks are found from the swaps, not carried as a candidate on every position, which an
 * incremental run would read with every carried position and a full run write for every pair.
 * A token's latest priced leg is nearly always recent, so the swaps of the last day
 * (swaps_by_time's time order) settle most tokens; only the others are looked for in the
 * whole history.
 *
 * - `full`: every token of the generation's positions (a full run, or a generation with no
 *   stored marks);
 * - `moved`: the tokens whose latest priced leg among the run's swaps is later than their
 *   previous mark. Without a late key the legs before the previous run are as it saw them
 *   and the run only adds legs, so a mark can only move later;
 * - `exact`: after a late, re-delivered, moved or retracted swap, which can take a token's
 *   latest priced leg away or change its price: the tokens of those swaps' variants are
 *   found again ('' stored for one that has none now), the others as `moved`.
 *
 * Parameters: as_of, computed_at, positions_since (and those of run-changes.ts for `exact`).
 */
export type MarkUpdate = 'full' | 'exact' | 'moved'

const DT = "DateTime64(3, 'UTC')"
const RECENT_DAYS = 1

const INSERT = (t: Tables) => `INSERT INTO ${t.walletStatsMarks} (token, mark_key, mark_price, computed_at)`

/**
 * The tokens' marks as of the previous run (bound '<', with computed_at this run's), or the
 * latest stored (no bound): each token's latest row of the generation.
 */
function marksSql(t: Tables, bound: '<' | null): string {
  return `SELECT token, latest.1 AS mark_key, latest.2 AS mark FROM (
      SELECT token, argMax((mark_key, mark_price), computed_at) AS latest FROM ${t.walletStatsMarks}
      WHERE computed_at >= {positions_since: ${DT}}${bound === null ? '' : ` AND computed_at ${bound} {computed_at: ${DT}}`}
      GROUP BY token)
    WHERE mark_key != ''`
}

/** The latest stored marks of the generation (token, mark): those a reader values open positions at (open-positions.ts). */
export const latestMarksSql = (t: Tables): string => marksSql(t, null)

/** Each token's latest priced leg with an amount among the swaps of `source` (token, mark_key, mark_price), the tokens' legs kept by `keep` (of `token`). */
function latestPricedLegsSql(source: string, keep: string): string {
  const key = legOrderKeyOfMs('toUnixTimestamp64Milli(timestamp)', 'hash', 'chain_id', 'side')
  return `SELECT token, max(key) AS mark_key, argMax(price, key) AS mark_price FROM (
      SELECT leg.1 AS token, leg.2 AS side, ${key} AS key, value_usd / toFloat64(leg.3) AS price
      FROM ${source}
      ARRAY JOIN [(token_sold_address, toUInt8(0), token_sold_amount), (token_bought_address, toUInt8(1), token_bought_amount)] AS leg
      WHERE value_usd IS NOT NULL AND leg.3 > 0 AND ${keep})
    GROUP BY token`
}

/** The live swaps at or before as_of, of its last `days` days (null: all). */
const liveSwaps = (t: Tables, days: number | null) =>
  `(SELECT * FROM ${t.swaps} FINAL WHERE timestamp <= {as_of: ${DT}}${days === null ? '' : ` AND timestamp > {as_of: ${DT}} - toIntervalDay(${days})`})`

/** The tokens with a mark stored by this run. */
const MARKED_BY_RUN = (t: Tables) => `(SELECT token FROM ${t.walletStatsMarks} WHERE computed_at = {computed_at: ${DT}})`

/**
 * Stores the marks of `tokens` (null: every token of the generation's positions): from the
 * last day's swaps, then from the whole history for the tokens the last day has no priced
 * leg of. Every token of the last day's swaps is in the positions, so with null the first
 * step needs no list, and the positions' tokens are read once, for what is left.
 */
async function findMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, tokens: readonly string[] | null): Promise<void> {
  const listed = { ...params, tokens: tokens ?? [] }
  const keep = tokens === null ? '1' : 'token IN {tokens: Array(String)}'
  await runWrite(clickhouse, `${INSERT(t)} SELECT *, {computed_at: ${DT}} FROM (${latestPricedLegsSql(liveSwaps(t, RECENT_DAYS), keep)})`, listed)
  const all =
    tokens === null
      ? `SELECT DISTINCT ${addressText('p.token')} AS token FROM ${t.walletPositions} AS p WHERE p.computed_at >= {positions_since: ${DT}}`
      : 'SELECT arrayJoin({tokens: Array(String)}) AS token'
  const [row] = await queryRows<{ missing: string[] }>(
    clickhouse,
    `SELECT groupArray(token) AS missing FROM (${all}) WHERE token NOT IN ${MARKED_BY_RUN(t)}`,
    listed,
  )
  const missing = row?.missing ?? []
  if (missing.length === 0) return
  const older = `(SELECT * FROM ${liveSwaps(t, null)} WHERE token_sold_address IN {missing: Array(String)} OR token_bought_address IN {missing: Array(String)})`
  await runWrite(clickhouse, `${INSERT(t)} SELECT *, {computed_at: ${DT}} FROM (${latestPricedLegsSql(older, 'token IN {missing: Array(String)}')})`, {
    ...params,
    missing,
  })
}

/** Stores the marks the run moves later (its swaps in wallet_run_swaps), of the tokens `keep` (of `token`) keeps. */
async function storeMovedMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, keep: string): Promise<void> {
  await runWrite(
    clickhouse,
    `${INSERT(t)}
      SELECT c.token, c.mark_key, c.mark_price, {computed_at: ${DT}}
      FROM (${latestPricedLegsSql(t.walletRunSwaps, keep)}) AS c
      LEFT JOIN (${marksSql(t, '<')}) AS p ON p.token = c.token
      WHERE c.mark_key > p.mark_key`,
    params,
  )
}

/** Stores the marks the run sets (after its positions are written). */
export async function storeMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, update: MarkUpdate): Promise<void> {
  if (update === 'full') {
    await findMarks(clickhouse, t, params, null)
    return
  }
  if (update === 'moved') {
    await storeMovedMarks(clickhouse, t, params, '1')
    return
  }
  // The late keys' tokens, read once: found again, '' for one left without a priced leg, the others moved.
  const late = (await queryRows<{ token: string }>(clickhouse, lateTokensSql(t), params)).map((r) => r.token)
  await findMarks(clickhouse, t, params, late)
  await runWrite(
    clickhouse,
    `${INSERT(t)} SELECT token, '', 0., {computed_at: ${DT}} FROM (SELECT arrayJoin({late: Array(String)}) AS token)
      WHERE token NOT IN ${MARKED_BY_RUN(t)}`,
    { ...params, late },
  )
  await storeMovedMarks(clickhouse, t, { ...params, late }, 'token NOT IN {late: Array(String)}')
}

/** Whether the generation has stored marks (one an earlier release computed may have none until its next full run). */
export async function generationHasMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>): Promise<boolean> {
  const [row] = await queryRows<{ marks: string }>(
    clickhouse,
    `SELECT count() AS marks FROM ${t.walletStatsMarks} WHERE computed_at >= {positions_since: ${DT}}`,
    params,
  )
  return Number(row?.marks ?? 0) > 0
}
