import { STAT_WINDOWS, WINDOW_DAYS, type StatWindow } from './windows.js'

/**
 * The weighted-average-cost fold of one (wallet, token)'s legs in ClickHouse: the SQL twin
 * of position-step.ts (the reference's rule), written once for every kind of run.
 *
 * A leg is the tuple (token, ms, hash_bytes, chain_id, side (0 sell, 1 buy), amount UInt256,
 * priced UInt8, usd Float64): LEG_TUPLE. The hash is its 32 bytes (stored hashes are 0x and
 * 64 lower-case hex digits, so the bytes order as the text does), shorter to carry and sort.
 * A pair's legs are folded in their order (time, hash, chain, side) in one arrayFold whose
 * accumulator holds:
 *
 * - the position: quantity, cost;
 * - the outcome of the leg just folded (reduced, realized, closed cost, matched and
 *   unmatched proceeds) and its time: each step computes its leg's outcome and adds the
 *   previous one's to the sums, the last outcome after the fold (foldsSum). Adding each
 *   leg's outcome in its own step measured slower (1.5–1.7 s against 1.2–1.3 s for a slice
 *   of 630,000 swaps);
 * - per window and measure, the sums of the legs inside the window.
 */

/** A leg as the fold takes it, and the order its pair's legs are folded in. */
export const LEG_TUPLE = '(token, ms, hash_bytes, chain_id, side, amount, priced, usd)'
export const LEG_ORDER = 'x -> (x.1, x.2, x.3, x.4, x.5)'

const LEG_FIELDS = ['token', 'ms', 'hash', 'chain_id', 'side', 'amount', 'priced', 'usd'] as const

/** A field of the leg `leg` (an expression of LEG_TUPLE's shape). */
export function legField(leg: string, field: (typeof LEG_FIELDS)[number]): string {
  return `${leg}.${LEG_FIELDS.indexOf(field) + 1}`
}

const L = { ms: legField('x', 'ms'), side: legField('x', 'side'), amount: legField('x', 'amount'), priced: legField('x', 'priced'), usd: legField('x', 'usd') } as const

/** The measures a pair's fold sums per window. */
export type FoldMeasure = 'realized' | 'closed' | 'matched' | 'unmatched' | 'reduced' | 'won'

/**
 * The sums the fold keeps per window: the reduced and won legs are counted in one UInt64
 * (reduced + won·2^32; even summed over a wallet's pairs, far fewer than 2^32 legs), one
 * sum fewer in each step.
 */
const SUMS = ['realized', 'closed', 'matched', 'unmatched', 'counts'] as const
type FoldSum = (typeof SUMS)[number]
const WON = 4_294_967_296

/**
 * A leg's sort key as one string of 45 bytes, so that comparing keys compares bytes: the
 * time (8 bytes, big-endian), the hash (32 bytes: stored hashes are 0x and 64 lower-case hex
 * digits), the chain (4 bytes, big-endian), the side ('0' sell before '1' buy). Every part
 * has a fixed length, so it orders exactly as the tuple (time, hash, chain, side) does.
 */
export function legOrderKeyOfMs(ms: string, hash: string, chainId: string, side: string): string {
  return `concat(unhex(leftPad(hex(${ms}), 16, '0')), unhex(substring(${hash}, 3)), unhex(leftPad(hex(${chainId}), 8, '0')), toString(${side}))`
}

/** The windows with a start, longest first. */
const BOUNDED = STAT_WINDOWS.filter((w) => WINDOW_DAYS[w] !== null).sort((a, b) => WINDOW_DAYS[b]! - WINDOW_DAYS[a]!)

/** The name of a window's start (Int64 ms) in the queries; `all` starts at 0. */
export function startName(w: StatWindow): string {
  return WINDOW_DAYS[w] === null ? 'toInt64(0)' : `start_${WINDOW_DAYS[w]}d`
}

/** The window starts as Int64 ms, from `as_of` (DateTime64) in scope: WITH-list entries. */
export function windowStartsSql(): string {
  return BOUNDED.map((w) => `toUnixTimestamp64Milli(as_of) - ${WINDOW_DAYS[w]! * 86_400_000} AS ${startName(w)}`).join(',\n  ')
}

/** Whether the time `ms` (Int64 ms) is inside window w. */
export function inWindow(ms: string, w: StatWindow): string {
  return WINDOW_DAYS[w] === null ? '1' : `${ms} >= ${startName(w)}`
}

const SELL = `${L.side} = 0`
const RECORDED_BUY = `(${L.side} = 1 AND ${L.priced} AND ${L.amount} > 0)`
// COVERED and REMOVED are used only where the leg is a sell.
const COVERED = `least(${L.amount}, acc.1)`
const REMOVED = `if(${COVERED} = acc.1, acc.2, acc.2 * toFloat64(${COVERED}) / toFloat64(acc.1))`
const REDUCED = `(${SELL} AND ${L.priced} AND ${COVERED} > 0)`
const PROCEEDS = `if(${REDUCED}, if(${COVERED} = ${L.amount}, ${L.usd}, ${L.usd} * toFloat64(${COVERED}) / toFloat64(${L.amount})), 0.)`
const REALIZED = `(${PROCEEDS} - ${REMOVED})`
const UNMATCHED = `if(${SELL} AND ${L.priced}, ${L.usd} - ${PROCEEDS}, 0.)`

/** Accumulator fields 3–8: the outcome of the leg just folded, and its time. */
const OUTCOME = [`toUInt8(${REDUCED})`, `if(${REDUCED}, ${REALIZED}, 0.)`, `if(${REDUCED}, ${REMOVED}, 0.)`, PROCEEDS, UNMATCHED, L.ms]
const LAST = { reduced: 3, realized: 4, closed: 5, proceeds: 6, unmatched: 7, ms: 8 } as const
const FIRST_SUM = 9

/** A sum's contribution of the outcome held in `o` (an accumulator or a fold's result). */
function contribution(o: string, sum: FoldSum): string {
  switch (sum) {
    case 'realized':
      return `${o}.${LAST.realized}`
    case 'closed':
      return `${o}.${LAST.closed}`
    case 'matched':
      return `${o}.${LAST.proceeds}`
    case 'unmatched':
      return `${o}.${LAST.unmatched}`
    case 'counts':
      return `(toUInt64(${o}.${LAST.reduced}) + if(${o}.${LAST.reduced} AND ${o}.${LAST.realized} > 0, ${WON}, 0))`
  }
}

const zero = (sum: FoldSum) => (sum === 'counts' ? 'toUInt64(0)' : '0.')
const sumSlot = (w: StatWindow, sum: FoldSum) => FIRST_SUM + STAT_WINDOWS.indexOf(w) * SUMS.length + SUMS.indexOf(sum)

/** The last outcome in `o` added to the window's sum when it is inside the window (`all` takes every one). */
function windowSum(o: string, w: StatWindow, sum: FoldSum): string {
  const added = contribution(o, sum)
  return WINDOW_DAYS[w] === null ? `${o}.${sumSlot(w, sum)} + ${added}` : `${o}.${sumSlot(w, sum)} + if(${inWindow(`${o}.${LAST.ms}`, w)}, ${added}, ${zero(sum)})`
}

const STEP = `tuple(
    toUInt256(if(${SELL}, acc.1 - ${COVERED}, if(${RECORDED_BUY}, acc.1 + ${L.amount}, acc.1))),
    if(${SELL}, if(${COVERED} = acc.1, 0., acc.2 - ${REMOVED}), if(${RECORDED_BUY}, acc.2 + ${L.usd}, acc.2)),
    ${OUTCOME.join(',\n    ')},
    ${STAT_WINDOWS.flatMap((w) => SUMS.map((m) => windowSum('acc', w, m))).join(',\n    ')})`

/** The fold of the legs `legs` (an array of LEG_TUPLE in order) from the position (quantity, cost). */
export function pairFoldSql(legs: string, quantity: string, cost: string): string {
  const sums = STAT_WINDOWS.flatMap(() => SUMS.map(zero)).join(', ')
  return `arrayFold((acc, x) -> ${STEP}, ${legs}, tuple(toUInt256(${quantity}), toFloat64(${cost}), toUInt8(0), 0., 0., 0., 0., toInt64(-1), ${sums}))`
}

/** The quantity and cost after a fold's last leg. */
export const foldQuantity = (fold: string) => `${fold}.1`
export const foldCost = (fold: string) => `${fold}.2`

/**
 * The sum over folds of one measure in window w: `over` sums an expression of a fold (named
 * `f`) over the folds, as arraySum(f -> …, folds) does.
 */
export function foldsSum(over: (ofFold: string) => string, w: StatWindow, measure: FoldMeasure): string {
  if (measure === 'reduced') return `bitAnd(${over(windowSum('f', w, 'counts'))}, ${WON - 1})`
  if (measure === 'won') return `intDiv(${over(windowSum('f', w, 'counts'))}, ${WON})`
  return over(windowSum('f', w, measure))
}
