import type { Tables } from '../storage/tables.js'
import {
  foldBefores,
  foldCost,
  foldQuantity,
  inWindow,
  LEG_ORDER,
  LEG_TUPLE,
  legField,
  legOutcomesSql,
  legsSum,
  pairFoldsSql,
  startName,
  windowStartsSql,
  type LegMeasure,
} from './pair-fold-sql.js'
import { addressText, storedAddress } from './position-keys.js'
import { STAT_WINDOWS, type StatWindow } from '../platform/smart-money-settings.js'

/**
 * The positions a run writes (wallet_token_positions): the swaps of a source
 * are cut into legs and grouped by wallet; the wallet's legs, sorted by token and then in
 * fold order (pair-fold-sql.ts), are split into its pairs, and each pair is folded from zero
 * or from its carried position, as of `{as_of}`, stamped `{computed_at}`. One group per
 * wallet rather than per (wallet, token): on the benchmark's store a hundred times fewer
 * groups, and the wallet's sums of the run are added up in its own row, then written on
 * its first pair's row.
 */

/** The columns of a swap source: a table or query with these names (and `refold` when carried). */
export const SOURCE_COLUMNS =
  'wallet_address, timestamp, hash, chain_id, token_sold_address, token_sold_amount, token_bought_address, token_bought_amount, value_usd'

/** Where a folded pair starts: from nothing (every leg folded), or, for the wallets with refold = 0, from its stored position. */
export type PairStart = 'zero' | 'carried'

const DT = "DateTime64(3, 'UTC')"

/** Each swap of `source` as two legs: a sell of the sold token, a buy of the bought one, both at value_usd. */
function legsSql(source: string, extra: string): string {
  return `SELECT wallet_address, leg.1 AS token, toUnixTimestamp64Milli(timestamp) AS ms, unhex(substring(hash, 3)) AS hash_bytes, chain_id, leg.2 AS side, leg.3 AS amount,
      isNotNull(value_usd) AS priced, ifNull(value_usd, 0.) AS usd${extra}
    FROM ${source}
    ARRAY JOIN [(token_sold_address, toUInt8(0), token_sold_amount), (token_bought_address, toUInt8(1), token_bought_amount)] AS leg`
}

/** Per window (STAT_WINDOWS order), an expression of the window. */
const perWindow = (expression: (w: StatWindow) => string) => `[${STAT_WINDOWS.map(expression).join(', ')}]`

/** Buy legs inside window w: one per swap, so a wallet's trades are its buy legs. */
const tradeIn = (w: StatWindow) => `side = 1 AND ${inWindow('ms', w)}`

/** The wallet's trades per window, aggregated with its legs. */
const TRADES = `${perWindow((w) => `countIf(${tradeIn(w)})`)} AS wallet_trades,
        ${perWindow((w) => `countIf(${tradeIn(w)} AND NOT priced)`)} AS wallet_trades_without_usd,
        ${perWindow((w) => `sumIf(usd, ${tradeIn(w)})`)} AS wallet_volume_usd,
        ${perWindow((w) => `fromUnixTimestamp64Milli(minIf(toNullable(ms), ${tradeIn(w)}), 'UTC')`)} AS wallet_first_trade,
        ${perWindow((w) => `fromUnixTimestamp64Milli(maxIf(toNullable(ms), ${tradeIn(w)}), 'UTC')`)} AS wallet_last_trade`

/**
 * One row per wallet: its legs sorted (wallet_legs), its trades, its tokens and, per token,
 * the token's legs (pairs, an array per token).
 */
function walletPairsSql(source: string, start: PairStart): string {
  return `SELECT *,
      arrayMap(x -> ${legField('x', 'token')}, wallet_legs) AS leg_tokens,
      arrayMap((token, previous) -> token != previous, leg_tokens, arrayPushFront(arrayPopBack(leg_tokens), '')) AS pair_starts,
      arrayFilter((token, first) -> first, leg_tokens, pair_starts) AS tokens,
      arraySplit((x, first) -> first, wallet_legs, pair_starts) AS pairs
    FROM (
      SELECT wallet_address, arraySort(${LEG_ORDER}, groupArray(${LEG_TUPLE})) AS wallet_legs, ${TRADES}${start === 'carried' ? ', max(refold) AS refold' : ''}
      FROM (${legsSql(source, start === 'carried' ? ', refold' : '')})
      GROUP BY wallet_address
    )`
}

/** A pair folded from nothing: the carried columns, one per pair. */
const ZERO_CARRIED = `arrayMap(p -> toUInt256(0), pairs) AS carried_quantity, arrayMap(p -> 0., pairs) AS carried_cost,
      arrayMap(p -> toInt64(-1), pairs) AS carried_last_ms`

/**
 * The wallets' pairs with the stored position of the current generation (`{positions_since}`)
 * of each pair of a wallet with refold = 0 (zeros for the others). A pair's latest row is
 * taken by argMax over the few rows of the touched pairs rather than with FINAL, which would
 * merge every row of the table first; a pair's rows never share a computed_at (a run writes
 * each pair once), and a latest row that is a retraction means no position, as with FINAL.
 * The generation is tested on that latest row, after grouping: a pair's rows of the current
 * generation are later than any of an older one, and testing every row read took a quarter
 * of the lookup on the benchmark's store.
 *
 * The touched pairs are picked by the hash of (wallet, token) stored with each position
 * (pair_hash), several times cheaper to test than the pair of addresses; a
 * pair sharing a touched pair's hash is only read, since the token's place in the wallet's
 * carried tokens is looked up by its address (the positions keep addresses as bytes:
 * position-keys.ts). With `narrowByWallet`, the touched wallets narrow the read by the
 * table's key: when few wallets have new swaps most granules are skipped (1,000 swaps on the
 * 10M store: 0.4 → 0.05 s), but the test costs every row read, so a run touching most
 * wallets goes without.
 */
function carriedPairsSql(t: Tables, source: string, narrowByWallet: boolean): string {
  const at = (column: string, zero: string) => `arrayMap(i -> if(i > 0, c.${column}[i], ${zero}), carried_index)`
  return `SELECT w.*,
      arrayMap(token -> if(w.refold = 0, indexOf(c.c_tokens, ${storedAddress('token')}), 0), w.tokens) AS carried_index,
      ${at('c_quantities', 'toUInt256(0)')} AS carried_quantity,
      ${at('c_costs', '0.')} AS carried_cost,
      ${at('c_last_ms', 'toInt64(-1)')} AS carried_last_ms
    FROM (${walletPairsSql(source, 'carried')}) AS w
    LEFT JOIN (
      SELECT ${addressText('wallet_address')} AS wallet, groupArray(token) AS c_tokens, groupArray(quantity) AS c_quantities, groupArray(cost) AS c_costs,
        groupArray(last_ms) AS c_last_ms
      FROM (
        SELECT wallet_address, token, max(computed_at) AS latest_at, argMax(quantity, computed_at) AS quantity,
          argMax(cost_usd, computed_at) AS cost, argMax(toUnixTimestamp64Milli(last_timestamp), computed_at) AS last_ms,
          argMax(is_deleted, computed_at) AS deleted
        FROM ${t.walletPositions}
        WHERE pair_hash IN (SELECT cityHash64(${storedAddress('wallet_address')}, ${storedAddress('leg')}) FROM ${source}
            ARRAY JOIN [token_sold_address, token_bought_address] AS leg WHERE refold = 0)
          ${narrowByWallet ? `AND wallet_address IN (SELECT ${storedAddress('wallet_address')} FROM ${source} WHERE refold = 0)` : ''}
        GROUP BY wallet_address, token
      )
      WHERE latest_at >= {positions_since: ${DT}} AND deleted = 0
      GROUP BY wallet_address
    ) AS c ON c.wallet = w.wallet_address`
}

/** The folds of the pairs. */
function foldedSql(pairs: string): string {
  return `SELECT *, ${pairFoldsSql('pairs', 'carried_quantity', 'carried_cost').join(', ')}
    FROM (${pairs})`
}

/** A wallet's sum over its folded legs of one measure, per window. */
const legsSumPerWindow = (measure: LegMeasure) => perWindow((w) => legsSum(w, measure))

/** Each pair's position after the fold: a column of the positions and the wallet's array it is taken from. */
const PAIR_COLUMNS: Readonly<Record<string, string>> = {
  token: 'tokens',
  quantity: `arrayMap(f -> ${foldQuantity('f')}, folds)`,
  cost_usd: `arrayMap(f -> ${foldCost('f')}, folds)`,
  last_timestamp: `arrayMap(ms -> fromUnixTimestamp64Milli(ms, 'UTC'), pair_last_ms)`,
}

/**
 * The wallet's sums of the run, each an array per window (STAT_WINDOWS order), in the order
 * of the elements of the positions' wallet_sums: zipped into one tuple per
 * window there.
 */
const WALLET_SUMS = [
  'wallet_trades',
  'wallet_trades_without_usd',
  'wallet_volume_usd',
  legsSumPerWindow('matched'),
  legsSumPerWindow('unmatched'),
  legsSumPerWindow('closed'),
  legsSumPerWindow('realized'),
  legsSumPerWindow('reduced'),
  legsSumPerWindow('won'),
  // A pair counts in a window's tokens traded in the run whose fold brings it into the window.
  perWindow((w) => `toUInt64(arrayCount((last, carried) -> carried < ${startName(w)} AND last >= ${startName(w)}, pair_last_ms, carried_last_ms))`),
  'wallet_first_trade',
  'wallet_last_trade',
]

/**
 * INSERT of the folded pairs of `source` (a table or a parenthesized query with
 * SOURCE_COLUMNS): one row per pair, the wallet's sums on its first pair's row (empty on the
 * others: one column of tuples costs a run less than an array column per measure). The sums
 * are joined as an array of one per pair (the first the sums, the others empty) rather than
 * chosen after the join, which would copy them onto every pair's row first.
 * Parameters: as_of, computed_at (and positions_since when carried). `narrowByWallet`: see
 * carriedPairsSql.
 */
export function positionsInsertSql(t: Tables, source: string, start: PairStart, { narrowByWallet = false } = {}): string {
  const pairs = start === 'zero' ? `SELECT *, ${ZERO_CARRIED} FROM (${walletPairsSql(source, 'zero')})` : carriedPairsSql(t, source, narrowByWallet)
  const perWallet = [
    // The pairs' legs in the wallet's order (pairs split wallet_legs), each with the position before it.
    `arrayFlatten(arrayMap(f -> ${foldBefores('f')}, folds)) AS leg_befores`,
    // Each pair's last leg's time, taken once: a lambda over the pairs themselves copies every leg of each (four windows' counts did).
    `arrayMap(p -> ${legField('p[-1]', 'ms')}, pairs) AS pair_last_ms`,
    ...legOutcomesSql('wallet_legs', 'leg_befores'),
    ...Object.entries(PAIR_COLUMNS).map(([column, array]) => `${array} AS ${column}_array`),
    `arrayZip(${WALLET_SUMS.join(',\n      ')}) AS sums`,
    // Resized with the type's default: [sums, [], [], …].
    'arrayResize([sums], length(tokens)) AS wallet_sums_array',
  ]
  const joined = [...Object.keys(PAIR_COLUMNS), 'wallet_sums']
  const columns = ['wallet_address', ...joined, 'computed_at']
  return `INSERT INTO ${t.walletPositions} (${columns.join(', ')})
SELECT ${storedAddress('wallet_address')}, ${joined.map((c) => (c === 'token' ? storedAddress(c) : c)).join(', ')}, {computed_at: ${DT}}
FROM (
  WITH {as_of: ${DT}} AS as_of,
    ${windowStartsSql()}
  SELECT wallet_address, ${perWallet.join(',\n    ')}
  FROM (${foldedSql(pairs)})
)
ARRAY JOIN ${joined.map((column) => `${column}_array AS ${column}`).join(', ')}`
}
