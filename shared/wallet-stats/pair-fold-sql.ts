import { STAT_WINDOWS, WINDOW_DAYS, type StatWindow } from './windows.js'

/**
 * The weighted-average-cost fold of one (wallet, token)'s legs in ClickHouse: the SQL twin
 * of position-step.ts (the reference's rule), written once for every kind of run.
 *
 * A leg is the tuple x = (side (0 sell, 1 buy), amount UInt256, priced UInt8, usd Float64).
 * The legs of a pair are sorted by their order key (legOrderKey: so by time) and cut at the window starts
 * into bands: before the 180-day window, inside it but before the 90-day one, and so on.
 * Each band is folded on from the state the previous band ended with (the first band from
 * the carried state: zero for a pair folded from its first leg, the stored state for a pair
 * continued with later legs), and adds up its legs' outcomes: realized PnL, closed cost,
 * matched and unmatched proceeds, reduced and won counts. A window's sums are the sums of
 * the bands inside it. Cutting by band keeps the per-leg work independent of the number of
 * windows (a sum per window in one fold costs several times more).
 *
 * The accumulator: (quantity, cost, then the outcome of the leg just folded: reduced,
 * realized, closed cost, proceeds, unmatched; then the band's sums of the legs before it).
 * Each step computes its leg's outcome once and adds the previous one's; the band's last
 * outcome is added after the fold (bandSum).
 */

const MEASURES = ['realized', 'closed', 'matched', 'unmatched', 'reduced', 'won'] as const
export type FoldMeasure = (typeof MEASURES)[number]

/**
 * A leg's sort key as one string, so that sorting a pair's legs compares bytes: the time as
 * 16 hex digits, the hash, a NUL (a shorter hash first), the chain as 8 hex digits, the side
 * (sell before buy). Orders exactly as the tuple (time, hash, chain, side) does.
 */
export function legOrderKey(timestamp: string, hash: string, chainId: string, side: string): string {
  return legOrderKeyOfMs(`toUnixTimestamp64Milli(${timestamp})`, hash, chainId, side)
}

/** legOrderKey from the time in ms (Int64). */
function legOrderKeyOfMs(ms: string, hash: string, chainId: string, side: string): string {
  return `concat(leftPad(hex(${ms}), 16, '0'), ${hash}, '\\0', leftPad(hex(${chainId}), 8, '0'), toString(${side}))`
}

/** The windows with a start, longest first: the band boundaries. */
const BOUNDED = STAT_WINDOWS.filter((w) => WINDOW_DAYS[w] !== null).sort((a, b) => WINDOW_DAYS[b]! - WINDOW_DAYS[a]!)

/** The name of a window's start (Int64 ms) in the queries; `all` starts at 0. */
export function startName(w: StatWindow): string {
  return WINDOW_DAYS[w] === null ? 'toInt64(0)' : `start_${WINDOW_DAYS[w]}d`
}

/** The window starts as Int64 ms, from `as_of` (DateTime64) in scope: WITH-list entries. */
export function windowStartsSql(): string {
  return BOUNDED.map((w) => `toUnixTimestamp64Milli(as_of) - ${WINDOW_DAYS[w]! * 86_400_000} AS ${startName(w)}`).join(',\n  ')
}

const SELL = 'x.1 = 0'
const RECORDED_BUY = '(x.1 = 1 AND x.3 AND x.2 > 0)'
const COVERED = `if(${SELL}, least(x.2, acc.1), toUInt256(0))`
const REMOVED = `if(${SELL}, if(${COVERED} = acc.1, acc.2, acc.2 * toFloat64(${COVERED}) / toFloat64(acc.1)), 0.)`
const REDUCED = `(${SELL} AND x.3 AND ${COVERED} > 0)`
const PROCEEDS = `if(${REDUCED}, if(${COVERED} = x.2, x.4, x.4 * toFloat64(${COVERED}) / toFloat64(x.2)), 0.)`
const REALIZED = `(${PROCEEDS} - ${REMOVED})`
const UNMATCHED = `if(${SELL} AND x.3, x.4 - ${PROCEEDS}, 0.)`

/** Accumulator fields 3–7: the outcome of the leg just folded. */
const OUTCOME = [`toUInt8(${REDUCED})`, `if(${REDUCED}, ${REALIZED}, 0.)`, `if(${REDUCED}, ${REMOVED}, 0.)`, PROCEEDS, UNMATCHED]
const LAST = { reduced: 3, realized: 4, closed: 5, proceeds: 6, unmatched: 7 } as const
const FIRST_SUM = 8

/** A measure's contribution of the outcome held in `o` (an accumulator or a fold's result). */
function contribution(o: string, measure: FoldMeasure): string {
  switch (measure) {
    case 'realized':
      return `${o}.${LAST.realized}`
    case 'closed':
      return `${o}.${LAST.closed}`
    case 'matched':
      return `${o}.${LAST.proceeds}`
    case 'unmatched':
      return `${o}.${LAST.unmatched}`
    case 'reduced':
      return `toUInt64(${o}.${LAST.reduced})`
    case 'won':
      return `toUInt64(${o}.${LAST.reduced} AND ${o}.${LAST.realized} > 0)`
  }
}

const sumSlot = (measure: FoldMeasure) => FIRST_SUM + MEASURES.indexOf(measure)

const STEP = `tuple(
    toUInt256(if(${SELL}, acc.1 - ${COVERED}, if(${RECORDED_BUY}, acc.1 + x.2, acc.1))),
    if(${SELL}, if(${COVERED} = acc.1, 0., acc.2 - ${REMOVED}), if(${RECORDED_BUY}, acc.2 + x.4, acc.2)),
    ${OUTCOME.join(',\n    ')},
    ${MEASURES.map((m) => `acc.${sumSlot(m)} + ${contribution('acc', m)}`).join(',\n    ')})`

function init(quantity: string, cost: string): string {
  return `tuple(toUInt256(${quantity}), toFloat64(${cost}), toUInt8(0), 0., 0., 0., 0., 0., 0., 0., 0., toUInt64(0), toUInt64(0))`
}

/** A band's sums of one measure: the fold's sum plus its last leg's outcome. */
function bandSum(fold: string, measure: FoldMeasure): string {
  return `(${fold}.${sumSlot(measure)} + ${contribution(fold, measure)})`
}

/**
 * The aggregate that gathers a group's legs (a GROUP BY wallet_address, token over rows with
 * ms, hash, chain_id, side, amount, priced, usd), sorted by (ms, hash, chain_id, side), the
 * order legOrderKey encodes (comparing the tuple is cheaper than building every leg's key):
 * `pair_sorted`, read with PAIR_LEGS_SQL.
 */
export const PAIR_SORTED_SQL = `arraySort(x -> (x.1, x.2, x.3, x.4), groupArray((ms, hash, chain_id, side, amount, priced, usd))) AS pair_sorted`

const sortedKey = (leg: string) => legOrderKeyOfMs(`${leg}.1`, `${leg}.2`, `${leg}.3`, `${leg}.4`)

/** From pair_sorted: the legs as the fold takes them, their times, the last leg's key and time, the latest priced leg's key and price. */
export const PAIR_LEGS_SQL = `arrayMap(x -> (x.4, x.5, x.6, x.7), pair_sorted) AS pair_legs,
    arrayMap(x -> x.1, pair_sorted) AS pair_ms,
    ${sortedKey('pair_sorted[-1]')} AS last_key,
    fromUnixTimestamp64Milli(pair_ms[-1], 'UTC') AS last_timestamp,
    arrayLastIndex(x -> x.6 AND x.5 > 0, pair_sorted) AS mark_index,
    if(mark_index > 0, ${sortedKey('pair_sorted[mark_index]')}, '') AS new_mark_key,
    if(mark_index > 0, pair_sorted[mark_index].7 / toFloat64(pair_sorted[mark_index].5), 0.) AS new_mark_price`

/**
 * The folds of the pairs of `grouped` (a query with pair_legs and pair_ms, and whatever else
 * passes through), from the carried quantity and cost (expressions over its columns): every
 * column of `grouped`, and `fold_0` … `fold_n`, one per band, each band in its own query
 * level so that no fold's expression is repeated inside the next one's.
 */
export function foldedPairsSql(grouped: string, carriedQuantity: string, carriedCost: string): string {
  const cuts = BOUNDED.map((w) => `arrayCount(m -> m < ${startName(w)}, pair_ms)`)
  const bounds = ['0', ...cuts, 'length(pair_legs)']
  let query = grouped
  for (let i = 0; i <= BOUNDED.length; i++) {
    const from = i === 0 ? init(carriedQuantity, carriedCost) : init(`fold_${i - 1}.1`, `fold_${i - 1}.2`)
    const band = `arraySlice(pair_legs, ${bounds[i]} + 1, ${bounds[i + 1]} - ${bounds[i]})`
    query = `SELECT *, arrayFold((acc, x) -> ${STEP}, ${band}, ${from}) AS fold_${i} FROM (${query})`
  }
  return query
}

/** The quantity and cost after the pair's last leg. */
export const foldQuantity = `fold_${BOUNDED.length}.1`
export const foldCost = `fold_${BOUNDED.length}.2`

/** A measure's sums over the folded legs as an array over STAT_WINDOWS (band i is inside every window starting at or before it). */
export function foldSums(measure: FoldMeasure): string {
  const band = (i: number) => bandSum(`fold_${i}`, measure)
  const windowSum = (w: StatWindow) => {
    const first = WINDOW_DAYS[w] === null ? 0 : BOUNDED.indexOf(w) + 1
    return Array.from({ length: BOUNDED.length + 1 - first }, (_, k) => band(first + k)).join(' + ')
  }
  return `[${STAT_WINDOWS.map(windowSum).join(', ')}]`
}
