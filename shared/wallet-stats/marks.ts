import type { ClickHouseClient } from '../clickhouse.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'

/**
 * Each token's mark: the price (value_usd / raw amount) of its latest priced leg, any wallet's,
 * the greatest of the pairs' mark candidates (positions-sql.ts). A run stores the marks it
 * set in wallet_stats_marks (migration 16) after writing its positions, so that an
 * incremental run values every open position without reading every pair's candidate:
 *
 * - `full`: every token's mark from the run's own positions (a full run);
 * - `exact`: every token's from the generation's positions (FINAL), and '' for a token that
 *   had one and has none now (an incremental run after a late, re-delivered, moved or
 *   retracted swap, which can take a token's latest priced leg away);
 * - `moved`: the tokens whose mark the run's positions move later. Without such a swap the
 *   legs before the previous run are as it saw them, and the run only adds legs, so a mark
 *   can only move later.
 *
 * Parameters: computed_at, positions_since.
 */
export type MarkUpdate = 'full' | 'exact' | 'moved'

const DT = "DateTime64(3, 'UTC')"

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

function candidatesSql(t: Tables, rows: string): string {
  return `SELECT token, max(mark_key) AS candidate_key, argMax(mark_price, mark_key) AS candidate_price
    FROM ${rows} AND mark_key != '' GROUP BY token`
}

const INSERT = (t: Tables) => `INSERT INTO ${t.walletStatsMarks} (token, mark_key, mark_price, computed_at)`

/** Stores the marks the run sets (after its positions are written). */
export async function storeMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>, update: MarkUpdate): Promise<void> {
  const own = `${t.walletPositions} WHERE computed_at = {computed_at: ${DT}}`
  const generation = `${t.walletPositions} FINAL WHERE computed_at >= {positions_since: ${DT}}`
  const run = (query: string) => clickhouse.command({ query, query_params: params })
  if (update === 'moved') {
    await run(`${INSERT(t)}
      SELECT c.token, c.candidate_key, c.candidate_price, {computed_at: ${DT}}
      FROM (${candidatesSql(t, own)}) AS c
      LEFT JOIN (${marksSql(t, '<')}) AS p ON p.token = c.token
      WHERE c.candidate_key > p.mark_key`)
    return
  }
  await run(`${INSERT(t)} SELECT token, candidate_key, candidate_price, {computed_at: ${DT}} FROM (${candidatesSql(t, update === 'full' ? own : generation)})`)
  if (update === 'exact') {
    await run(`${INSERT(t)}
      SELECT token, '', 0., {computed_at: ${DT}} FROM (${marksSql(t, '<')})
      WHERE token NOT IN (SELECT token FROM ${t.walletStatsMarks} WHERE computed_at = {computed_at: ${DT}})`)
  }
}

/** Whether the generation has stored marks (a store computed before migration 16 has none until its next full run). */
export async function generationHasMarks(clickhouse: ClickHouseClient, t: Tables, params: Record<string, unknown>): Promise<boolean> {
  const [row] = await queryRows<{ marks: string }>(
    clickhouse,
    `SELECT count() AS marks FROM ${t.walletStatsMarks} WHERE computed_at >= {positions_since: ${DT}}`,
    params,
  )
  return Number(row?.marks ?? 0) > 0
}
