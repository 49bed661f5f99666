import type { Tables } from '../tables.js'
import { STAT_WINDOWS } from './windows.js'

/**
 * The statistics of every wallet in one ClickHouse query: one row per (wallet, window),
 * as of the parameter `{as_of: DateTime64(3, 'UTC')}` (swaps after it are not seen).
 *
 * Swaps are read from swaps_by_time FINAL, so a re-delivered swap counts once and a
 * retracted one not at all, as the reads see them. Each swap is two legs (a sell of the
 * sold token, a buy of the bought one, both valued at value_usd). The legs of one
 * (wallet, token) are sorted by (time, hash, chain, sell before buy) and folded with
 * arrayFold through the weighted-average-cost rule of position-step.ts, whose TypeScript
 * twin is the reference the tests compare with. The fold carries the exact UInt256
 * quantity, the Float64 cost, and per window the sums of the legs inside it.
 */

/** Window starts, in STAT_WINDOWS order; `all` starts at the epoch. */
const STARTS = `[${STAT_WINDOWS.map((w) =>
  w === 'all' ? `toDateTime64(0, 3, 'UTC')` : `as_of - toIntervalDay(${w.replace('d', '')})`,
).join(', ')}]`

// x = (timestamp, hash, chain_id, side (0 sell, 1 buy), amount, priced, usd); acc = see INIT.
const SELL = 'x.4 = 0'
const RECORDED_BUY = '(x.4 = 1 AND x.6 AND x.5 > 0)'
const COVERED = `if(${SELL}, least(x.5, acc.1), toUInt256(0))`
const REMOVED = `if(${SELL}, if(${COVERED} = acc.1, acc.2, acc.2 * toFloat64(${COVERED}) / toFloat64(acc.1)), 0.)`
const REDUCED = `(${SELL} AND x.6 AND ${COVERED} > 0)`
const PROCEEDS = `if(${REDUCED}, if(${COVERED} = x.5, x.7, x.7 * toFloat64(${COVERED}) / toFloat64(x.5)), 0.)`
const REALIZED = `(${PROCEEDS} - ${REMOVED})`
const UNMATCHED = `if(${SELL} AND x.6, x.7 - ${PROCEEDS}, 0.)`

const STEP = `tuple(
    toUInt256(if(${SELL}, acc.1 - ${COVERED}, if(${RECORDED_BUY}, acc.1 + x.5, acc.1))),
    if(${SELL}, if(${COVERED} = acc.1, 0., acc.2 - ${REMOVED}), if(${RECORDED_BUY}, acc.2 + x.7, acc.2)),
    arrayMap((v, s) -> v + if(${REDUCED} AND x.1 >= s, ${REALIZED}, 0.), acc.3, starts),
    arrayMap((v, s) -> v + if(${REDUCED} AND x.1 >= s, ${REMOVED}, 0.), acc.4, starts),
    arrayMap((v, s) -> v + if(${REDUCED} AND x.1 >= s, ${PROCEEDS}, 0.), acc.5, starts),
    arrayMap((v, s) -> v + if(x.1 >= s, ${UNMATCHED}, 0.), acc.6, starts),
    arrayMap((v, s) -> v + toUInt64(${REDUCED} AND x.1 >= s), acc.7, starts),
    arrayMap((v, s) -> v + toUInt64(${REDUCED} AND x.1 >= s AND ${REALIZED} > 0), acc.8, starts))`

const ZEROS = `[${STAT_WINDOWS.map(() => '0.').join(', ')}]`
const COUNT_ZEROS = `[${STAT_WINDOWS.map(() => 'toUInt64(0)').join(', ')}]`
const INIT = `tuple(toUInt256(0), 0., ${ZEROS}, ${ZEROS}, ${ZEROS}, ${ZEROS}, ${COUNT_ZEROS}, ${COUNT_ZEROS})`

/** Columns of a (wallet, window) row, in the order walletStatsSelect returns them. */
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

function perWindow(expression: (start: string) => string): string {
  return `[${STAT_WINDOWS.map((_, i) => expression(`starts[${i + 1}]`)).join(', ')}]`
}

export function walletStatsSelect(t: Tables): string {
  return `
WITH
  {as_of: DateTime64(3, 'UTC')} AS as_of,
  ${STARTS} AS starts,
  legs AS (
    SELECT wallet_address, leg.1 AS token, timestamp, hash, chain_id, leg.2 AS side, leg.3 AS amount,
           isNotNull(value_usd) AS priced, ifNull(value_usd, 0.) AS usd
    FROM (
      SELECT wallet_address, timestamp, hash, chain_id, token_sold_address, token_sold_amount,
             token_bought_address, token_bought_amount, value_usd
      FROM ${t.swaps} FINAL
      WHERE timestamp <= as_of
    )
    ARRAY JOIN [(token_sold_address, toUInt8(0), token_sold_amount), (token_bought_address, toUInt8(1), token_bought_amount)] AS leg
  ),
  marks AS (
    SELECT token, argMax(usd / toFloat64(amount), (timestamp, hash, chain_id, side)) AS mark
    FROM legs WHERE priced AND amount > 0 GROUP BY token
  ),
  positions AS (
    SELECT wallet_address, token,
           arrayFold((acc, x) -> ${STEP}, arraySort(groupArray((timestamp, hash, chain_id, side, amount, priced, usd))), ${INIT}) AS st
    FROM legs GROUP BY wallet_address, token
  ),
  by_positions AS (
    SELECT p.wallet_address AS wallet_address,
           sumForEach(p.st.3) AS realized, sumForEach(p.st.4) AS closed, sumForEach(p.st.5) AS matched,
           sumForEach(p.st.6) AS unmatched, sumForEach(p.st.7) AS reduced, sumForEach(p.st.8) AS won,
           sumIf(toFloat64(p.st.1) * m.mark - p.st.2, p.st.1 > 0) AS unrealized,
           countIf(p.st.1 > 0) AS open
    FROM positions AS p LEFT JOIN marks AS m ON m.token = p.token
    GROUP BY p.wallet_address
  ),
  by_trades AS (
    SELECT wallet_address,
           ${perWindow((s) => `countIf(side = 0 AND timestamp >= ${s})`)} AS trades,
           ${perWindow((s) => `countIf(side = 0 AND timestamp >= ${s} AND NOT priced)`)} AS without_usd,
           ${perWindow((s) => `sumIf(usd, side = 0 AND timestamp >= ${s})`)} AS volume,
           ${perWindow((s) => `uniqExactIf(token, timestamp >= ${s})`)} AS tokens,
           ${perWindow((s) => `minIf(timestamp, timestamp >= ${s})`)} AS first,
           ${perWindow((s) => `maxIf(timestamp, timestamp >= ${s})`)} AS last
    FROM legs GROUP BY wallet_address
  )
SELECT t.wallet_address AS wallet_address,
       [${STAT_WINDOWS.map((w) => `'${w}'`).join(', ')}][i] AS window,
       t.trades[i] AS trades,
       t.without_usd[i] AS trades_without_usd,
       t.volume[i] AS volume_usd,
       p.matched[i] AS matched_proceeds_usd,
       p.unmatched[i] AS unmatched_proceeds_usd,
       p.closed[i] AS closed_cost_usd,
       p.realized[i] AS realized_pnl_usd,
       p.reduced[i] AS positions_reduced,
       p.won[i] AS positions_won,
       t.tokens[i] AS tokens_traded,
       if(t.trades[i] = 0, NULL, t.first[i]) AS first_trade,
       if(t.trades[i] = 0, NULL, t.last[i]) AS last_trade,
       p.unrealized AS unrealized_pnl_usd,
       p.open AS open_positions
FROM by_trades AS t INNER JOIN by_positions AS p ON p.wallet_address = t.wallet_address
ARRAY JOIN arrayEnumerate(t.trades) AS i`
}
