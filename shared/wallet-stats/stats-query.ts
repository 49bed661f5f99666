import type { Tables } from '../tables.js'
import { runMarksSql } from './marks.js'
import { startName, windowStartsSql } from './pair-fold-sql.js'
import { STAT_WINDOWS, type StatWindow } from './windows.js'

/**
 * A run's (wallet, window) rows of wallet_stats, summed from three parts:
 *
 * - the positions this run wrote (positions-sql.ts): per window, the sums of the legs it
 *   folded and the pairs it brought into the window;
 * - the trades of the swaps it folded (count, without USD, volume, first and last time),
 *   read from the same source;
 * - for an incremental run, the previous run's rows of every wallet not refolded: a wallet
 *   whose pairs were only continued adds this run's legs to them.
 *
 * Then every wallet's open positions valued at each token's mark as the run stored it
 * (marks.ts): the price of the token's latest priced leg (value_usd / raw amount, any
 * wallet). Parameters: as_of, computed_at, positions_since; previous_computed_at and
 * refolded (Array(String)) for an incremental run.
 */

/** Columns of a (wallet, window) row, in the order the query returns them. */
export const WALLET_STATS_COLUMNS = [
  'wallet_address',
  'window',
  'trades',
  'trades_without_usd',
  'volume_usd',
  'matched_proceeds_usd',
  'unmatched_proceeds_usd',
  'closed_cost_usd',
  'realized_pnl_usd',
  'positions_reduced',
  'positions_won',
  'tokens_traded',
  'first_trade',
  'last_trade',
  'unrealized_pnl_usd',
  'open_positions',
] as const

const WINDOW_NAMES = `[${STAT_WINDOWS.map((w) => `'${w}'`).join(', ')}]`
const DT = "DateTime64(3, 'UTC')"
const NULL_TIME = `CAST(NULL AS Nullable(${DT}))`

function perWindow(expression: (start: string) => string): string {
  return `[${STAT_WINDOWS.map((w: StatWindow) => expression(startName(w))).join(', ')}]`
}

/** The summed columns, with their zero. */
const SUMMED = [
  ['trades', 'toUInt64(0)'],
  ['trades_without_usd', 'toUInt64(0)'],
  ['volume_usd', '0.'],
  ['matched_proceeds_usd', '0.'],
  ['unmatched_proceeds_usd', '0.'],
  ['closed_cost_usd', '0.'],
  ['realized_pnl_usd', '0.'],
  ['positions_reduced', 'toUInt64(0)'],
  ['positions_won', 'toUInt64(0)'],
  ['tokens_traded', 'toUInt64(0)'],
] as const

type Part = Partial<Record<(typeof SUMMED)[number][0] | 'first_trade' | 'last_trade', string>>

/** One part as (wallet, window) rows: `arrays` names per-window arrays of `from` (already one row per wallet). */
function partRows(from: string, arrays: Part): string {
  const cols = SUMMED.map(([name, zero]) => `${arrays[name] ? `${arrays[name]}[i]` : zero} AS ${name}`)
  const first = arrays.first_trade ? `${arrays.first_trade}[i]` : NULL_TIME
  const last = arrays.last_trade ? `${arrays.last_trade}[i]` : NULL_TIME
  return `SELECT wallet_address, ${WINDOW_NAMES}[i] AS window, ${cols.join(', ')}, ${first} AS first_trade, ${last} AS last_trade
    FROM (${from}) ARRAY JOIN arrayEnumerate(${WINDOW_NAMES}) AS i`
}

function positionPart(t: Tables): string {
  return partRows(
    `SELECT wallet_address,
        sumForEach(realized_pnl_usd) AS realized, sumForEach(closed_cost_usd) AS closed,
        sumForEach(matched_proceeds_usd) AS matched, sumForEach(unmatched_proceeds_usd) AS unmatched,
        sumForEach(positions_reduced) AS reduced, sumForEach(positions_won) AS won,
        sumForEach(CAST(entered, 'Array(UInt64)')) AS tokens
      FROM ${t.walletPositions}
      WHERE computed_at = {computed_at: ${DT}} AND is_deleted = 0
      GROUP BY wallet_address`,
    {
      realized_pnl_usd: 'realized',
      closed_cost_usd: 'closed',
      matched_proceeds_usd: 'matched',
      unmatched_proceeds_usd: 'unmatched',
      positions_reduced: 'reduced',
      positions_won: 'won',
      tokens_traded: 'tokens',
    },
  )
}

function tradePart(source: string): string {
  return partRows(
    `SELECT wallet_address,
        ${perWindow((s) => `countIf(toUnixTimestamp64Milli(timestamp) >= ${s})`)} AS trades,
        ${perWindow((s) => `countIf(toUnixTimestamp64Milli(timestamp) >= ${s} AND value_usd IS NULL)`)} AS without_usd,
        ${perWindow((s) => `sumIf(ifNull(value_usd, 0.), toUnixTimestamp64Milli(timestamp) >= ${s})`)} AS volume,
        ${perWindow((s) => `minIf(toNullable(timestamp), toUnixTimestamp64Milli(timestamp) >= ${s})`)} AS first,
        ${perWindow((s) => `maxIf(toNullable(timestamp), toUnixTimestamp64Milli(timestamp) >= ${s})`)} AS last
      FROM ${source}
      GROUP BY wallet_address`,
    { trades: 'trades', trades_without_usd: 'without_usd', volume_usd: 'volume', first_trade: 'first', last_trade: 'last' },
  )
}

function previousPart(t: Tables): string {
  return `SELECT wallet_address, window, ${SUMMED.map(([name]) => name).join(', ')}, first_trade, last_trade
    FROM ${t.walletStats}
    WHERE computed_at = {previous_computed_at: ${DT}} AND wallet_address NOT IN {refolded: Array(String)}`
}

/**
 * Every wallet's open positions (quantity > 0) at their token's mark (0 without one), less
 * their cost. After a full run its own rows are the only ones of the generation, one per
 * pair: no FINAL.
 */
function unrealizedSql(t: Tables, incremental: boolean): string {
  const current = `${t.walletPositions}${incremental ? ' FINAL' : ''} WHERE computed_at >= {positions_since: ${DT}}`
  return `SELECT p.wallet_address AS wallet_address,
        sumIf(toFloat64(p.quantity) * m.mark - p.cost_usd, p.quantity > 0) AS unrealized,
        countIf(p.quantity > 0) AS open
      FROM (SELECT wallet_address, token, quantity, cost_usd FROM ${current}) AS p
      LEFT JOIN (${runMarksSql(t)}) AS m ON m.token = p.token
      GROUP BY p.wallet_address`
}

/**
 * INSERT of a run's rows. `source`: the swaps the run folded (a table, or a parenthesized
 * query with wallet_address, timestamp and value_usd); `incremental`: whether the previous
 * run's rows of the wallets not refolded are carried.
 */
export function walletStatsInsertSql(t: Tables, source: string, incremental: boolean): string {
  const parts = [positionPart(t), tradePart(source), ...(incremental ? [previousPart(t)] : [])]
  const columns = WALLET_STATS_COLUMNS.join(', ')
  return `INSERT INTO ${t.walletStats} (${columns}, computed_at)
WITH {as_of: ${DT}} AS as_of,
  ${windowStartsSql()}
SELECT s.wallet_address, s.window, ${SUMMED.map(([name]) => `s.${name}`).join(', ')}, s.first_trade, s.last_trade,
  ifNull(u.unrealized, 0.), ifNull(u.open, 0), {computed_at: ${DT}}
FROM (
  SELECT wallet_address, window, ${SUMMED.map(([name]) => `sum(${name}) AS ${name}`).join(', ')},
    min(first_trade) AS first_trade, max(last_trade) AS last_trade
  FROM (${parts.join('\n    UNION ALL\n    ')})
  GROUP BY wallet_address, window
) AS s
LEFT JOIN (${unrealizedSql(t, incremental)}) AS u ON u.wallet_address = s.wallet_address`
}
