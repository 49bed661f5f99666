import type { Tables } from '../storage/tables.js'
import { addressText } from './position-keys.js'
import { STAT_WINDOWS } from '../platform/smart-money-settings.js'

/**
 * A run's (wallet, window) rows of wallet_stats, from two parts:
 *
 * - the sums of the swaps this run folded (written on each wallet's first pair,
 *   positions-sql.ts): the legs' outcomes, the pairs it brought into the window, the trades;
 * - for an incremental run, the previous run's rows of every wallet not refolded: a wallet
 *   whose pairs were only continued adds this run's legs to them.
 *
 * Open positions are valued when read (open-positions.ts), not here. Parameters:
 * computed_at; previous_computed_at and refolded (Array(String)) for an incremental run.
 */

const DT = "DateTime64(3, 'UTC')"

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
] as const

/**
 * A run's rows of wallet_stats, to read after FROM (parameter computed_at). A run writes each
 * (wallet, window) once, so they need no FINAL; with FINAL a served run's rows would even
 * vanish while the next run's rows of the same keys are written but not yet merged (FINAL
 * keeps the later row, then the filter drops it).
 */
export const runRowsSql = (t: Tables): string => `${t.walletStats} WHERE computed_at = {computed_at: ${DT}}`

/** The select list of a run's rows as a WalletStatsRow reads them (stats-rows.ts: times as text). */
export const RUN_ROW_SELECT_LIST = WALLET_STATS_COLUMNS.map((c) => (c === 'first_trade' || c === 'last_trade' ? `toString(${c}) AS ${c}` : c)).join(', ')

const WINDOW_NAMES = `[${STAT_WINDOWS.map((w) => `'${w}'`).join(', ')}]`
/** The summed columns: those of a row from its trades to its tokens traded. */
const SUMMED = WALLET_STATS_COLUMNS.slice(WALLET_STATS_COLUMNS.indexOf('trades'), WALLET_STATS_COLUMNS.indexOf('tokens_traded') + 1)

/** The sums of the swaps this run folded as (wallet, window) rows, from its wallets' first pairs (positions-sql.ts). */
function runSumsPart(t: Tables): string {
  const at = (name: string) => `tupleElement(sums, '${name}') AS ${name}`
  return `SELECT ${addressText('p.wallet_address')} AS wallet_address, ${WINDOW_NAMES}[i] AS window, ${[...SUMMED, 'first_trade', 'last_trade'].map(at).join(', ')}
    FROM ${t.walletPositions} AS p ARRAY JOIN p.wallet_sums AS sums, arrayEnumerate(p.wallet_sums) AS i
    WHERE p.computed_at = {computed_at: ${DT}}`
}

/** The previous run's rows of the wallets not refolded. */
const previousRowsSql = (t: Tables) => `SELECT wallet_address, window, ${SUMMED.join(', ')}, first_trade, last_trade
    FROM ${t.walletStats}
    WHERE computed_at = {previous_computed_at: ${DT}} AND wallet_address NOT IN {refolded: Array(String)}`

/** The earlier or later of two times either of which may be NULL (none), as min or max over both would give. */
const earlierOf = (x: string, y: string) => `if(${x} IS NULL OR ${y} < ${x}, ${y}, ${x})`
const laterOf = (x: string, y: string) => `if(${x} IS NULL OR ${y} > ${x}, ${y}, ${x})`

/**
 * The INSERT of a run's rows, in wallet_stats' key order, so that the insert need not sort
 * them (sorted by the insert, a full run's 400,000 rows took 2.45 s instead of 0.45 s on the
 * benchmark's store). A full run writes each wallet's sums once: nothing to add up.
 * An incremental run joins the previous rows of the wallets not refolded with its sums, in
 * one pass: a wallet it folded and had rows adds its sums to them, a wallet it did not fold
 * keeps its row (no sums: zeros), a refolded or new wallet has only its sums. One join is
 * cheaper than adding up a union and copying the others apart. Joined by sorting on
 * (window, wallet), the rows come out in wallet_stats' key order, so neither the join nor
 * the insert sorts them again.
 */
export function walletStatsInsertSql(t: Tables, incremental: boolean): string {
  const columns = WALLET_STATS_COLUMNS.join(', ')
  const into = `INSERT INTO ${t.walletStats} (${columns}, computed_at)`
  if (!incremental) return `${into} SELECT ${columns}, {computed_at: ${DT}} FROM (${runSumsPart(t)}) ORDER BY window, wallet_address`
  // Unmatched, a side's columns are their types' defaults: '' for the keys, 0 for the sums, NULL for the times.
  return `${into}
SELECT if(p.wallet_address = '', r.wallet_address, p.wallet_address), if(p.wallet_address = '', r.window, p.window),
  ${SUMMED.map((name) => `p.${name} + r.${name}`).join(', ')},
  ${earlierOf('p.first_trade', 'r.first_trade')}, ${laterOf('p.last_trade', 'r.last_trade')}, {computed_at: ${DT}}
FROM (${previousRowsSql(t)}) AS p
FULL OUTER JOIN (${runSumsPart(t)}) AS r ON r.window = p.window AND r.wallet_address = p.wallet_address
SETTINGS join_algorithm = 'full_sorting_merge'`
}
