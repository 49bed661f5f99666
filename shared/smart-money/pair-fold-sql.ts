import { WINDOW_DAYS } from './windows.js'
import { STAT_WINDOWS, type StatWindow } from '../platform/smart-money-settings.js'

/**
 * The weighted-average-cost fold of one (wallet, token)'s legs in ClickHouse: the SQL twin
 * of position-step.ts (the reference's rule), written once for every kind of run.
 *
 * A leg is the tuple (token, ms, hash_bytes, chain_id, side (0 sell, 1 buy), amount UInt256,
 * priced UInt8, usd Float64): LEG_TUPLE. The hash is its 32 bytes (stored hashes are 0x and
 * 64 lower-case hex digits, so the bytes order as the text does), shorter to carry and sort.
 *
 * A pair's legs are folded in their order (time, hash, chain, side), carrying only the
 * position (quantity, cost) and recording the position before each leg, a chunk of legs
 * per arrayFold (pairFoldsSql).
 * Each leg's outcome (reduced, realized, closed cost, matched and unmatched proceeds)
 * depends only on that position and the leg, so the outcomes are computed afterwards, for
 * all of a wallet's legs at once, and summed per window with one dot product against the
 * window's mask (legOutcomesSql, legsSum). Folding the outcomes and their 20 window sums in
 * the fold's own steps made every step build a tuple of 28, about a third slower.
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

/** Where a leg's fields are: in a LEG_TUPLE x, or in a fold's narrower leg (FOLD_LEG). */
interface LegFields {
  side: string
  amount: string
  priced: string
  usd: string
}
const sellOf = (x: LegFields) => `${x.side} = 0`
const recordedBuyOf = (x: LegFields) => `(${x.side} = 1 AND ${x.priced} AND ${x.amount} > 0)`
const SELL = sellOf(L)
/** The share part/whole of `value` (UInt256 part and whole): the value itself when the part is the whole. */
const shareOf = (part: string, whole: string, value: string) => `if(${part} = ${whole}, ${value}, ${value} * toFloat64(${part}) / toFloat64(${whole}))`

/** What a sell of the leg x covers of the position of quantity q. */
const coveredOf = (q: string, x: LegFields = L) => `least(${x.amount}, ${q})`

/** A leg as the fold steps it: only the fields a step reads, so that cutting pairs into chunks copies no more. */
const FOLD_LEG = `x -> (${L.side}, ${L.amount}, ${L.priced}, ${L.usd})`
const F: LegFields = { side: 'x.1', amount: 'x.2', priced: 'x.3', usd: 'x.4' }

// COVERED and REMOVED are used only where the leg is a sell.
const COVERED = coveredOf('acc.1', F)
const REMOVED = shareOf(COVERED, 'acc.1', 'acc.2')

/** The quantity and the cost after the fold's leg x, from the position acc ((quantity, cost, …)). */
const NEXT_QUANTITY = `toUInt256(if(${sellOf(F)}, acc.1 - ${COVERED}, if(${recordedBuyOf(F)}, acc.1 + ${F.amount}, acc.1)))`
const NEXT_COST = `if(${sellOf(F)}, if(${COVERED} = acc.1, 0., acc.2 - ${REMOVED}), if(${recordedBuyOf(F)}, acc.2 + ${F.usd}, acc.2))`

const POSITIONS = "CAST([], 'Array(Tuple(UInt256, Float64))')"

/** The position (quantity, cost) after the fold's legs `legs` from the position `start`. */
const positionAfter = (legs: string, start: string) => `arrayFold((acc, x) -> tuple(${NEXT_QUANTITY}, ${NEXT_COST}), ${legs}, ${start})`

/** (quantity, cost) after the fold's legs `legs` from the position `start`, and the position before each: each step copies those recorded so far. */
const recordingFold = (legs: string, start: string) =>
  `arrayFold((acc, x) -> tuple(${NEXT_QUANTITY}, ${NEXT_COST}, arrayPushBack(acc.3, (acc.1, acc.2))), ${legs}, tuple(${start}.1, ${start}.2, ${POSITIONS}))`

/** The most legs whose positions one fold records (pairFoldsSql). */
export const FOLD_CHUNK_LEGS = 256

/**
 * Select-list entries folding each pair of `pairs` (arrays of LEG_TUPLE in order) from its
 * position in `quantities` and `costs`, naming `folds`: per pair, (quantity, cost, the
 * position before each leg, in an array per chunk).
 *
 * A fold that records the position before each leg copies those recorded so far at every
 * step: a pair of n legs costs n²/2 copies (a bot's million legs would take about an hour).
 * The pairs are cut into chunks of FOLD_CHUNK_LEGS legs; a fold over the chunks but the
 * last, carrying only the position, finds where each chunk starts (none for a pair of one
 * chunk, nearly every pair), and each chunk records its own: about n·128 + (n/256)²/2
 * copies. Each leg is stepped in order with the same arithmetic as in one fold, so the
 * figures are the same to the last bit; pairs of one chunk cost what one fold did
 * (docs/decisions/0011-long-pairs-folded-in-chunks.md).
 */
export function pairFoldsSql(pairs: string, quantities: string, costs: string): string[] {
  // The last chunk's field by its column: chunk_folds[-1] would copy that chunk's recorded positions too.
  const last = (field: number) => `arrayMap(c -> c.${field}, chunk_folds)[-1]`
  return [
    `arrayMap(p -> arraySplit((x, i) -> (i - 1) % ${FOLD_CHUNK_LEGS} = 0, arrayMap(${FOLD_LEG}, p), arrayEnumerate(p)), ${pairs}) AS pair_chunks`,
    `arrayMap((chunks, quantity, cost) -> arrayFold((starts, chunk) -> arrayPushBack(starts, ${positionAfter('chunk', 'starts[-1]')}), arrayPopBack(chunks),
        [tuple(toUInt256(quantity), toFloat64(cost))]), pair_chunks, ${quantities}, ${costs}) AS pair_chunk_starts`,
    `arrayMap((chunks, starts) -> arrayMap((chunk, start) -> ${recordingFold('chunk', 'start')}, chunks, starts), pair_chunks, pair_chunk_starts) AS pair_chunk_folds`,
    `arrayMap(chunk_folds -> tuple(${last(1)}, ${last(2)}, arrayMap(c -> c.3, chunk_folds)), pair_chunk_folds) AS folds`,
  ]
}

/** The quantity and cost after a fold's last leg, and the (quantity, cost) before each of its legs (in arrays per chunk: arrayFlatten them). */
export const foldQuantity = (fold: string) => `${fold}.1`
export const foldCost = (fold: string) => `${fold}.2`
export const foldBefores = (fold: string) => `${fold}.3`

/** The measures summed from the legs' outcomes per window. */
export type LegMeasure = 'realized' | 'closed' | 'matched' | 'unmatched' | 'reduced' | 'won'

/**
 * The reduced and won legs are counted in one UInt64 (reduced + won·2^32; even summed over a
 * wallet's legs, far fewer than 2^32), one sum fewer per window.
 */
const WON = 4_294_967_296

/** The name of window w's mask of the legs (1 where a leg is inside it); `all` has none. */
const maskName = (w: StatWindow) => `legs_in_${WINDOW_DAYS[w]}d`

/**
 * Select-list entries naming, for the legs `legs` (an array of LEG_TUPLE) and `befores` (the
 * position before each, as foldBefores gives), each leg's outcome as an array per measure,
 * and each bounded window's mask of the legs; the window starts (windowStartsSql) in scope.
 * A leg's covered amount is what a priced sell takes of the position (0 for any other leg),
 * so a leg reduces the position exactly when its covered amount is above 0.
 */
export function legOutcomesSql(legs: string, befores: string): string[] {
  return [
    `arrayMap((x, b) -> if(${SELL} AND ${L.priced}, ${coveredOf('b.1')}, toUInt256(0)), ${legs}, ${befores}) AS leg_covered`,
    `arrayMap((covered, b) -> if(covered = 0, 0., ${shareOf('covered', 'b.1', 'b.2')}), leg_covered, ${befores}) AS leg_closed`,
    `arrayMap((x, covered) -> if(covered = 0, 0., ${shareOf('covered', L.amount, L.usd)}), ${legs}, leg_covered) AS leg_matched`,
    `arrayMap((matched, closed) -> matched - closed, leg_matched, leg_closed) AS leg_realized`,
    `arrayMap((x, matched) -> if(${SELL} AND ${L.priced}, ${L.usd} - matched, 0.), ${legs}, leg_matched) AS leg_unmatched`,
    `arrayMap((covered, realized) -> toUInt64(covered > 0) + if(covered > 0 AND realized > 0, ${WON}, 0), leg_covered, leg_realized) AS leg_counts`,
    ...BOUNDED.map((w) => `arrayMap(x -> toUInt8(${inWindow(L.ms, w)}), ${legs}) AS ${maskName(w)}`),
  ]
}

const OUTCOME_ARRAY: Readonly<Record<LegMeasure, string>> = {
  realized: 'leg_realized',
  closed: 'leg_closed',
  matched: 'leg_matched',
  unmatched: 'leg_unmatched',
  reduced: 'leg_counts',
  won: 'leg_counts',
}

/** The sum of one measure over the legs inside window w (legOutcomesSql's names in scope). */
export function legsSum(w: StatWindow, measure: LegMeasure): string {
  const outcomes = OUTCOME_ARRAY[measure]
  const sum = WINDOW_DAYS[w] === null ? `arraySum(${outcomes})` : `arrayDotProduct(${outcomes}, ${maskName(w)})`
  if (measure === 'reduced') return `bitAnd(${sum}, ${WON - 1})`
  if (measure === 'won') return `intDiv(${sum}, ${WON})`
  return sum
}
