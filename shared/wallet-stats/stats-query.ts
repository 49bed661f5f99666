import type { Tables } from '../tables.js'
import { runMarksSql } from './marks.js'
import { STAT_WINDOWS } from './windows.js'

/**
 * A run's (wallet, window) rows of wallet_stats, summed from two parts:
 *
 * - the sums of the swaps this run folded (written on each wallet's first pair,
 *   positions-sql.ts): the legs' outcomes, the pairs it brought into the window, the trades;
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
/** The summed columns: those of a row from its trades to its tokens traded. */
const SUMMED = WALLET_STATS_COLUMNS.slice(WALLET_STATS_COLUMNS.indexOf('trades'), WALLET_STATS_COLUMNS.indexOf('tokens_traded') + 1)

/** The sums of the swaps this run folded as (wallet, window) rows, from its wallets' first pairs (positions-sql.ts). */
function runSumsPart(t: Tables): string {
  const at = (name: string) => `tupleElement(sums, '${name}') AS ${name}`
  return `SELECT wallet_address, ${WINDOW_NAMES}[i] AS window, ${[...SUMMED, 'first_trade', 'last_trade'].map(at).join(', ')}
    FROM ${t.walletPositions} ARRAY JOIN wallet_sums AS sums, arrayEnumerate(wallet_sums) AS i
    WHERE computed_at = {computed_at: ${DT}}`
}

function previousPart(t: Tables): string {
  return `SELECT wallet_address, window, ${SUMMED.join(', ')}, first_trade, last_trade
    FROM ${t.walletStats}
    WHERE computed_at = {previous_computed_at: ${DT}} AND wallet_address NOT IN {refolded: Array(String)}`
}

/**
 * Every wallet's open positions (quantity > 0) at their token's mark (0 without one), less
 * their cost. The marks (`marks`: the run's tokens and prices as two arrays) are looked up
 * with transform: joining every position with them took 2–6 s on the 10M store, this
 * 0.7–0.8 s. After a full run its own rows are the only ones of the generation, one per
 * pair: no FINAL.
 */
function unrealizedSql(t: Tables, incremental: boolean): string {
  const current = `${t.walletPositions}${incremental ? ' FINAL' : ''} WHERE computed_at >= {positions_since: ${DT}}`
  return `SELECT wallet_address,
        sumIf(toFloat64(quantity) * transform(token, marks.1, marks.2, 0.) - cost_usd, quantity > 0) AS unrealized,
        countIf(quantity > 0) AS open
      FROM ${current}
      GROUP BY wallet_address`
}

/**
 * INSERT of a run's rows. `incremental`: whether the previous run's rows of the wallets not
 * refolded are carried.
 */
export function walletStatsInsertSql(t: Tables, incremental: boolean): string {
  const parts = [runSumsPart(t), ...(incremental ? [previousPart(t)] : [])]
  const columns = WALLET_STATS_COLUMNS.join(', ')
  return `INSERT INTO ${t.walletStats} (${columns}, computed_at)
WITH (SELECT (groupArray(token), groupArray(mark)) FROM (${runMarksSql(t)})) AS marks
SELECT s.wallet_address, s.window, ${SUMMED.map((name) => `s.${name}`).join(', ')}, s.first_trade, s.last_trade,
  ifNull(u.unrealized, 0.), ifNull(u.open, 0), {computed_at: ${DT}}
FROM (
  SELECT wallet_address, window, ${SUMMED.map((name) => `sum(${name}) AS ${name}`).join(', ')},
    min(first_trade) AS first_trade, max(last_trade) AS last_trade
  FROM (${parts.join('\n    UNION ALL\n    ')})
  GROUP BY wallet_address, window
) AS s
LEFT JOIN (${unrealizedSql(t, incremental)}) AS u ON u.wallet_address = s.wallet_address`
}
