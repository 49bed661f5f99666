import type { Tables } from '../tables.js'
import { foldCost, foldedPairsSql, foldQuantity, foldSums, PAIR_LEGS_SQL, PAIR_SORTED_SQL, startName, windowStartsSql } from './pair-fold-sql.js'
import { STAT_WINDOWS } from './windows.js'

/**
 * The positions a run writes (wallet_positions, migration 10): the swaps of a source are
 * cut into legs, grouped by (wallet, token) and folded (pair-fold-sql.ts), from zero or
 * from the pair's carried position, as of `{as_of}` and stamped `{computed_at}`.
 */

/** The columns of a swap source: a table or query with these names (and `refold` when carried). */
export const SOURCE_COLUMNS =
  'wallet_address, timestamp, hash, chain_id, token_sold_address, token_sold_amount, token_bought_address, token_bought_amount, value_usd'

/** Each swap of `source` as two legs: a sell of the sold token, a buy of the bought one, both at value_usd. */
function legsSql(source: string, extra: string): string {
  return `SELECT wallet_address, leg.1 AS token, timestamp, toUnixTimestamp64Milli(timestamp) AS ms, hash, chain_id, leg.2 AS side, leg.3 AS amount,
      isNotNull(value_usd) AS priced, ifNull(value_usd, 0.) AS usd${extra}
    FROM ${source}
    ARRAY JOIN [(token_sold_address, toUInt8(0), token_sold_amount), (token_bought_address, toUInt8(1), token_bought_amount)] AS leg`
}

/** Where a folded pair starts: from nothing (every leg folded), or, for the source's rows with refold = 0, from its stored position. */
export type PairStart = 'zero' | 'carried'

/** A pair folded from nothing: the carried columns as constants. */
const ZERO_CARRIED = `toUInt256(0) AS carried_quantity, 0. AS carried_cost, '' AS carried_mark_key, 0. AS carried_mark_price, toInt64(-1) AS carried_last_ms`

/**
 * The legs with their pair's stored position of the current generation (`{positions_since}`)
 * for rows with refold = 0 (zeros for the others), found by its key. The pair's latest row is
 * taken by argMax over the few rows of the touched pairs rather than with FINAL, which would
 * merge every row of the table first; a pair's rows never share a computed_at (a run writes
 * each pair once), and a latest row that is a retraction means no position, as with FINAL.
 * The touched pairs are picked by the hash of (wallet, token), several times cheaper to test
 * than the pair of strings; a pair sharing a touched pair's hash is only read, since the
 * join matches the strings.
 */
function carriedLegsSql(t: Tables, source: string): string {
  return `SELECT l.*,
      if(l.refold = 0 AND c.found = 1, c.quantity, toUInt256(0)) AS c_quantity,
      if(l.refold = 0 AND c.found = 1, c.cost_usd, 0.) AS c_cost,
      if(l.refold = 0 AND c.found = 1, c.mark_key, '') AS c_mark_key,
      if(l.refold = 0 AND c.found = 1, c.mark_price, 0.) AS c_mark_price,
      if(l.refold = 0 AND c.found = 1, toUnixTimestamp64Milli(c.last_timestamp), toInt64(-1)) AS c_last_ms
    FROM (${legsSql(source, ', refold')}) AS l
    LEFT JOIN (
      SELECT wallet_address, token, latest.1 AS quantity, latest.2 AS cost_usd, latest.3 AS mark_key, latest.4 AS mark_price,
        latest.5 AS last_timestamp, toUInt8(1) AS found
      FROM (
        SELECT wallet_address, token, argMax((quantity, cost_usd, mark_key, mark_price, last_timestamp, is_deleted), computed_at) AS latest
        FROM ${t.walletPositions}
        WHERE computed_at >= {positions_since: DateTime64(3, 'UTC')}
          AND cityHash64(wallet_address, token) IN (SELECT cityHash64(wallet_address, leg) FROM ${source}
            ARRAY JOIN [token_sold_address, token_bought_address] AS leg WHERE refold = 0)
        GROUP BY wallet_address, token
      )
      WHERE latest.6 = 0
    ) AS c ON c.wallet_address = l.wallet_address AND c.token = l.token`
}

/** One row per pair: its sorted legs (pair-fold-sql.ts PAIR_LEGS_SQL) and where its fold starts. */
function groupedSql(t: Tables, source: string, start: PairStart): string {
  const grouped =
    start === 'zero'
      ? `SELECT wallet_address, token, ${PAIR_SORTED_SQL}, ${ZERO_CARRIED} FROM (${legsSql(source, '')}) GROUP BY wallet_address, token`
      : `SELECT wallet_address, token, ${PAIR_SORTED_SQL},
          any(c_quantity) AS carried_quantity, any(c_cost) AS carried_cost, any(c_mark_key) AS carried_mark_key,
          any(c_mark_price) AS carried_mark_price, any(c_last_ms) AS carried_last_ms
        FROM (${carriedLegsSql(t, source)}) GROUP BY wallet_address, token`
  return `SELECT *, ${PAIR_LEGS_SQL} FROM (${grouped})`
}

export const POSITION_COLUMNS = [
  'wallet_address',
  'token',
  'quantity',
  'cost_usd',
  'last_key',
  'last_timestamp',
  'mark_key',
  'mark_price',
  'realized_pnl_usd',
  'closed_cost_usd',
  'matched_proceeds_usd',
  'unmatched_proceeds_usd',
  'positions_reduced',
  'positions_won',
  'entered',
  'computed_at',
] as const

/**
 * INSERT of the folded pairs of `source` (a table or a parenthesized query with
 * SOURCE_COLUMNS): parameters as_of, computed_at (and positions_since when carried).
 * `entered`: per window, whether this fold brought the pair into it (a leg inside it and no
 * carried leg inside it), so a wallet's tokens traded is the sum over its runs' rows.
 */
export function positionsInsertSql(t: Tables, source: string, start: PairStart): string {
  const entered = `[${STAT_WINDOWS.map((w) => `toUInt8(carried_last_ms < ${startName(w)} AND toUnixTimestamp64Milli(last_timestamp) >= ${startName(w)})`).join(', ')}]`
  return `INSERT INTO ${t.walletPositions} (${POSITION_COLUMNS.join(', ')})
WITH {as_of: DateTime64(3, 'UTC')} AS as_of,
  ${windowStartsSql()}
SELECT wallet_address, token, ${foldQuantity}, ${foldCost}, last_key, last_timestamp,
  if(new_mark_key != '', new_mark_key, carried_mark_key), if(new_mark_key != '', new_mark_price, carried_mark_price),
  ${foldSums('realized')}, ${foldSums('closed')}, ${foldSums('matched')}, ${foldSums('unmatched')}, ${foldSums('reduced')}, ${foldSums('won')},
  ${entered},
  {computed_at: DateTime64(3, 'UTC')}
FROM (${foldedPairsSql(groupedSql(t, source, start), 'carried_quantity', 'carried_cost')})`
}
