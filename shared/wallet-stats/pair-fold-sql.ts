import { STAT_WINDOWS, WINDOW_DAYS, type StatWindow } from './windows.js'

/**
 * The weighted-average-cost fold of one (wallet, token)'s legs in ClickHouse: the SQL twin
 * of position-step.ts (the reference's rule), written once for every kind of run.
 *
 * A leg is the tuple (token, ms, hash, chain_id, side (0 sell, 1 buy), amount UInt256,
 * priced UInt8, usd Float64): LEG_TUPLE. A pair's legs are folded in their order (time,
 * hash, chain, side) in one arrayFold whose accumulator holds:
 *
 * - the position: quantity, cost;
 * - the outcome of the leg just folded (reduced, realized, closed cost, matched and
 *   unmatched proceeds) and its time: each step computes its leg's outcome and adds the
 *   previous one's to the sums, the last outcome after the fold (foldSum). Adding each
 *   leg's outcome in its own step measured slower (1.5–1.7 s against 1.2–1.3 s for a slice
 *   of 630,000 swaps);
 * - per window and measure, the sums of the legs inside the window.
 */

/** A leg as the fold takes it, and the order its pair's legs are folded in. */
export const LEG_TUPLE = '(token, ms, hash, chain_id, side, amount, priced, usd)'
export const LEG_ORDER = 'x -> (x.1, x.2, x.3, x.4, x.5)'

const LEG_FIELDS = ['token', 'ms', 'hash', 'chain_id', 'side', 'amount', 'priced', 'usd'] as const

/** A field of the leg `leg` (an expression of LEG_TUPLE's shape). */
export function legField(leg: string, field: (typeof LEG_FIELDS)[number]): string {
  return `${leg}.${LEG_FIELDS.indexOf(field) + 1}`
}

const L = { ms: legField('x', 'ms'), side: legField('x', 'side'), amount: legField('x', 'amount'), priced: legField('x', 'priced'), usd: legField('x', 'usd') } as const

const MEASURES = ['realized', 'closed', 'matched', 'unmatched', 'reduced', 'won'] as const
export type FoldMeasure = (typeof MEASURES)[number]

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
const COVERED = `if(${SELL}, least(${L.amount}, acc.1), toUInt256(0))`
const REMOVED = `if(${SELL}, if(${COVERED} = acc.1, acc.2, acc.2 * toFloat64(${COVERED}) / toFloat64(acc.1)), 0.)`
const REDUCED = `(${SELL} AND ${L.priced} AND ${COVERED} > 0)`
const PROCEEDS = `if(${REDUCED}, if(${COVERED} = ${L.amount}, ${L.usd}, ${L.usd} * toFloat64(${COVERED}) / toFloat64(${L.amount})), 0.)`
const REALIZED = `(${PROCEEDS} - ${REMOVED})`
const UNMATCHED = `if(${SELL} AND ${L.priced}, ${L.usd} - ${PROCEEDS}, 0.)`

/** Accumulator fields 3–8: the outcome of the leg just folded, and its time. */
const OUTCOME = [`toUInt8(${REDUCED})`, `if(${REDUCED}, ${REALIZED}, 0.)`, `if(${REDUCED}, ${REMOVED}, 0.)`, PROCEEDS, UNMATCHED, L.ms]
const LAST = { reduced: 3, realized: 4, closed: 5, proceeds: 6, unmatched: 7, ms: 8 } as const
const FIRST_SUM = 9

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

const zero = (measure: FoldMeasure) => (measure === 'reduced' || measure === 'won' ? 'toUInt64(0)' : '0.')
const sumSlot = (w: StatWindow, measure: FoldMeasure) => FIRST_SUM + STAT_WINDOWS.indexOf(w) * MEASURES.length + MEASURES.indexOf(measure)

/** The last outcome in `o` added to the window's sum of a measure when it is inside the window. */
const windowSum = (o: string, w: StatWindow, measure: FoldMeasure) =>
  `${o}.${sumSlot(w, measure)} + if(${inWindow(`${o}.${LAST.ms}`, w)}, ${contribution(o, measure)}, ${zero(measure)})`

const STEP = `tuple(
    toUInt256(if(${SELL}, acc.1 - ${COVERED}, if(${RECORDED_BUY}, acc.1 + ${L.amount}, acc.1))),
    if(${SELL}, if(${COVERED} = acc.1, 0., acc.2 - ${REMOVED}), if(${RECORDED_BUY}, acc.2 + ${L.usd}, acc.2)),
    ${OUTCOME.join(',\n    ')},
    ${STAT_WINDOWS.flatMap((w) => MEASURES.map((m) => windowSum('acc', w, m))).join(',\n    ')})`

/** The fold of the legs `legs` (an array of LEG_TUPLE in order) from the position (quantity, cost). */
export function pairFoldSql(legs: string, quantity: string, cost: string): string {
  const sums = STAT_WINDOWS.flatMap(() => MEASURES.map(zero)).join(', ')
  return `arrayFold((acc, x) -> ${STEP}, ${legs}, tuple(toUInt256(${quantity}), toFloat64(${cost}), toUInt8(0), 0., 0., 0., 0., toInt64(-1), ${sums}))`
}

/** The quantity and cost after a fold's last leg. */
export const foldQuantity = (fold: string) => `${fold}.1`
export const foldCost = (fold: string) => `${fold}.2`

/** A fold's sum of one measure in window w. */
export function foldSum(fold: string, w: StatWindow, measure: FoldMeasure): string {
  return `(${windowSum(fold, w, measure)})`
}
