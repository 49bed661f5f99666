import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'

const COUNTED = ['trades', 'trades_without_usd', 'positions_reduced', 'positions_won', 'tokens_traded', 'first_trade', 'last_trade']
const SUMMED = ['volume_usd', 'matched_proceeds_usd', 'unmatched_proceeds_usd', 'closed_cost_usd', 'realized_pnl_usd']

/**
 * The (wallet, window) rows of two runs side by side: how many, and how many differ (a count
 * or a time not equal, or a USD figure beyond 1e-9 relative / 1e-6 absolute, as the tests
 * allow for sums added in another order), including rows only one run has.
 */
export async function compareRuns(clickhouse: ClickHouseClient, tables: Tables, a: number, b: number): Promise<{ rows: number; different: number }> {
  const run = (name: string) => `(SELECT * FROM ${tables.walletStats} WHERE computed_at = {${name}: DateTime64(3, 'UTC')})`
  const differs = [
    ...COUNTED.map((c) => `NOT (a.${c} IS NOT DISTINCT FROM b.${c})`),
    ...SUMMED.map((c) => `abs(a.${c} - b.${c}) > greatest(1e-6, abs(b.${c}) * 1e-9)`),
  ].join(' OR ')
  const [row] = await queryRows<{ rows: string; different: string }>(
    clickhouse,
    `SELECT count() AS rows, countIf(a.wallet_address = '' OR b.wallet_address = '' OR ${differs}) AS different
     FROM ${run('a')} AS a FULL OUTER JOIN ${run('b')} AS b ON a.wallet_address = b.wallet_address AND a.window = b.window`,
    { a: dateTime64Param(a), b: dateTime64Param(b) },
  )
  return { rows: Number(row?.rows ?? 0), different: Number(row?.different ?? 0) }
}
