import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { RankedMeasure, SmartMoneyRule, TopRule } from '../platform/smart-money-settings.js'
import type { Tables } from '../storage/tables.js'
import { runRowsSql } from './stats-query.js'
import type { WalletStatsRun } from './wallet-stats-runs.js'

/** Each ranked measure over a stored wallet_stats row. */
export const MEASURE_SQL: Record<RankedMeasure, string> = {
  realized_pnl_usd: 'realized_pnl_usd',
  roi: 'if(closed_cost_usd > 0, realized_pnl_usd / closed_cost_usd, NULL)',
  volume_usd: 'volume_usd',
}

/** The SQL twin of isRanked over a stored row: the measure positive, and at least the rule's min_value when set (parameter min_value). */
export function rankedSql(rule: TopRule): string {
  const measure = MEASURE_SQL[rule.measure]
  return rule.min_value === undefined ? `${measure} > 0` : `${measure} > 0 AND ${measure} >= {min_value: Float64}`
}

/** The wallets of a run passing a rule (the same conditions as judgeThreshold / judgeTop); a top rule's in rank order. */
export async function rulePassers(clickhouse: ClickHouseClient, tables: Tables, run: WalletStatsRun, rule: SmartMoneyRule): Promise<string[]> {
  const from = `FROM ${runRowsSql(tables)} AND window = {window: String}`
  const computed_at = dateTime64Param(run.computedAtMs)
  if (rule.kind === 'top') {
    const measure = MEASURE_SQL[rule.measure]
    const rows = await queryRows<{ wallet_address: string }>(
      clickhouse,
      `SELECT wallet_address ${from} AND ${rankedSql(rule)} ORDER BY ${measure} DESC, wallet_address LIMIT {count: UInt32}`,
      { computed_at, window: rule.window, count: rule.count, min_value: rule.min_value },
    )
    return rows.map((r) => r.wallet_address)
  }
  const conditions = [
    rule.min_trades !== undefined ? 'trades >= {min_trades: UInt64}' : null,
    rule.min_realized_pnl_usd !== undefined ? 'realized_pnl_usd >= {min_pnl: Float64}' : null,
    rule.min_win_rate !== undefined ? 'positions_reduced > 0 AND positions_won / positions_reduced >= {min_win_rate: Float64}' : null,
    rule.min_roi !== undefined ? 'closed_cost_usd > 0 AND realized_pnl_usd / closed_cost_usd >= {min_roi: Float64}' : null,
  ].filter((c) => c !== null)
  const rows = await queryRows<{ wallet_address: string }>(
    clickhouse,
    `SELECT wallet_address ${from}${conditions.map((c) => ` AND ${c}`).join('')}`,
    {
      computed_at,
      window: rule.window,
      min_trades: rule.min_trades,
      min_pnl: rule.min_realized_pnl_usd,
      min_win_rate: rule.min_win_rate,
      min_roi: rule.min_roi,
    },
  )
  return rows.map((r) => r.wallet_address)
}

/** Every rule's passers in a run, by rule id; no run: none. */
export async function passersByRule(clickhouse: ClickHouseClient, tables: Tables, run: WalletStatsRun | null, rules: readonly SmartMoneyRule[]): Promise<Map<string, string[]>> {
  const passers = new Map<string, string[]>()
  if (run === null) return passers
  for (const rule of rules) passers.set(rule.id, await rulePassers(clickhouse, tables, run, rule))
  return passers
}
