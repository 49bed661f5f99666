import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../../platform/datetime-param.js'
import { queryRows } from '../query-rows.js'
import { swapCandleMarksViewDdl, SWAP_CANDLE_MARKS_VIEW } from '../schema/candles-schema.js'
import { SAME_TIME_LEG_TOMBSTONES_VIEW, sameTimeTombstonesViewDdl, TOKEN_LEGS_VIEW, tokenLegsDdl, tokenLegsDerivedSql, tokenLegsViewDdl } from '../schema/swaps-schema.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/** How far back the catch-up reaches before the newest row stored when the rebuild began: a worker stamps its rows before its insert commits. */
const CATCH_UP_MARGIN_MS = 10 * 60_000

/**
 * Each leg of the token path (swap_legs_by_token) carries its swap's wallet, so a token's
 * page of the served wallets (SERVED_WALLETS=tracked) picks its keys there instead of
 * reading every swap of the token's hours (schema/swaps-schema.ts tokenLegsDdl).
 *
 * The token path is rebuilt from what feeds it (tokenLegsDerivedSql: swaps_by_time's rows
 * and tombstones, swap_moves' same-time tombstones) into a new table, which then takes the
 * old one's name (EXCHANGE TABLES) while the three views around it are re-created. Rows
 * stored meanwhile are derived again (every row stored from 10 minutes before the rebuild
 * began: duplicates collapse, as every re-delivery does). A re-run after a crash rebuilds
 * again from the same sources. A cluster is created at the current layout.
 */
export const tokenLegWallets: Migration = {
  version: 15,
  name: 'token_leg_wallets',
  statements: () => [],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    const next = `${t.swapLegs}_next`
    // A new store (created at this layout) has nothing to rebuild.
    const [stored] = await queryRows<{ n: string }>(clickhouse, `SELECT (SELECT count() FROM ${t.swaps}) + (SELECT count() FROM ${t.swapLegs}) AS n`)
    if (Number(stored?.n ?? 0) === 0) return
    const since = dateTime64Param(Math.max(0, (await newestStored(clickhouse, t)) - CATCH_UP_MARGIN_MS))
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${next}` })
    await clickhouse.command({ query: tokenLegsDdl(next) })
    for (const query of tokenLegsDerivedSql(t, next)) await clickhouse.command({ query })
    for (const view of [TOKEN_LEGS_VIEW, SAME_TIME_LEG_TOMBSTONES_VIEW, SWAP_CANDLE_MARKS_VIEW]) {
      await clickhouse.command({ query: `DROP VIEW IF EXISTS ${t.database}.${view}` })
    }
    await clickhouse.command({ query: `EXCHANGE TABLES ${t.swapLegs} AND ${next}` })
    await clickhouse.command({ query: tokenLegsViewDdl(t) })
    await clickhouse.command({ query: sameTimeTombstonesViewDdl(t)[1]! })
    await clickhouse.command({ query: swapCandleMarksViewDdl(t) })
    for (const query of tokenLegsDerivedSql(t, t.swapLegs, 'since')) await clickhouse.command({ query, query_params: { since } })
    await clickhouse.command({ query: `DROP TABLE ${next}` })
  },
}

/** The newest ingested_at of swaps_by_time, ms (0: none). */
async function newestStored(clickhouse: ClickHouseClient, t: Tables): Promise<number> {
  const [row] = await queryRows<{ newest: string }>(clickhouse, `SELECT toString(toUnixTimestamp64Milli(max(ingested_at))) AS newest FROM ${t.swaps}`)
  return Number(row?.newest ?? 0)
}
