import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { CANDLE_MS, dateTime64Param, recentHoursSql, walkCandleGrid } from '../shared/candles/candles.js'
import { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'
import { queryNative } from '../shared/storage/native-format.js'
import type { Tables } from '../shared/storage/tables.js'
import { fourHourCandles, hourRowsSql, type CandleColumns } from './hour-candles.js'
import type { TokenHistory } from './token-histories.js'

/**
 * The indicator state after a token's whole history, gaps filled up to `lastClosed`.
 * Only the last six candles' high, low and volume reach the result (the pivots), and the
 * seventh-last's the state's undo record, so earlier candles are fed with their close alone.
 */
export function stateFromHistory(history: TokenHistory, lastClosed: number): IndicatorState {
  const state = IndicatorState.empty()
  const { times, closes, lastDay } = history
  if (times.length === 0) return state
  const dayFrom = lastDay.times.length > 0 ? lastDay.times[0]! : Infinity
  let day = 0 // the next of the last day's candles (ascending)
  feedGrid(state, times, times[0]!, lastClosed, (time, index, count) => {
    // Before the last day, a run of closes at once; then candle by candle, whole.
    const closesOnly = Math.max(0, Math.min(count, Math.ceil((dayFrom - time) / CANDLE_MS)))
    state.pushCloses(time, CANDLE_MS, closesOnly, closes, index)
    for (let k = closesOnly; k < count; k++) {
      const t = time + k * CANDLE_MS
      const close = closes[index + k]!
      while (day < lastDay.times.length && lastDay.times[day]! < t) day++
      if (lastDay.times[day] === t) state.push(t, lastDay.highs[day]!, lastDay.lows[day]!, close, lastDay.volumes[day]!)
      else state.push(t, close, close, close, 0)
    }
  })
  return state
}

/**
 * The closed 4-hour candles of every token (or of `tokens`, read by the primary key) from
 * `from` (ms, an interval start) up to `lastClosed`, by token, oldest first: what the
 * incremental step reads. Made from the newest version of each stored hour of the window
 * (recentHoursSql) by the same code as the full recompute's (fourHourCandles), so both
 * give the same candles to the bit.
 */
export async function readCandlesSince(
  clickhouse: ClickHouseClient,
  tables: Tables,
  from: number,
  lastClosed: number,
  tokens?: readonly string[],
): Promise<Map<string, CandleColumns>> {
  const blocks = await queryNative(
    clickhouse,
    `SELECT token, ${hourRowsSql()} AS hours FROM (${recentHoursSql(tables, tokens ? 'tokens' : 'all')}) GROUP BY token`,
    { from: dateTime64Param(from), before: dateTime64Param(lastClosed + CANDLE_MS), tokens: tokens ?? [] },
  )
  const byToken = new Map<string, CandleColumns>()
  for (const block of blocks) {
    const candles = fourHourCandles(block, 'hours')
    block.strings('token').forEach((token, i) => byToken.set(token, candles[i]!))
  }
  return byToken
}

/** Feeds a state the intervals after its last one up to `lastClosed`: the new candles, gaps filled. */
export function advanceState(state: IndicatorState, candles: CandleColumns, lastClosed: number): void {
  feedGrid(state, candles.times, state.lastTime + CANDLE_MS, lastClosed, (time, index, count) => {
    for (let i = index; i < index + count; i++) state.push(candles.times[i]!, candles.highs[i]!, candles.lows[i]!, candles.closes[i]!, candles.volumes[i]!)
  })
}

/**
 * Feeds the grid from `firstTime` to `lastClosed`: runs of observed intervals (`count`
 * from `time`, at `index` of `times`) through `observed`, gaps flat at the last close.
 */
function feedGrid(
  state: IndicatorState,
  times: ArrayLike<number>,
  firstTime: number,
  lastClosed: number,
  observed: (time: number, index: number, count: number) => void,
): void {
  walkCandleGrid(times, firstTime, lastClosed, CANDLE_MS, (time, index, count) => {
    if (index >= 0) observed(time, index, count)
    else state.pushCloses(time, CANDLE_MS, count, state.lastClose)
  })
}

/** [lo, hi) ranges of lower-case addresses ("0x" + hex), by their leading hex digits. */
export function addressRanges(slices: number): Array<[string, string]> {
  const n = Math.min(Math.max(1, Math.floor(slices)), 256)
  const bound = (i: number) => '0x' + Math.floor((i * 256) / n).toString(16).padStart(2, '0')
  return Array.from({ length: n }, (_, i): [string, string] => [i === 0 ? '' : bound(i), i === n - 1 ? '\u{10ffff}' : bound(i + 1)])
}

/**
 * The slices a full recompute reads, in order: `slices` even ones, except that the first
 * quarter of the first is read alone first. Nothing is computed before the first answer
 * arrives (the next ones are read while the previous one is computed), so a small first
 * one shortens that wait.
 */
export function recomputeSlices(slices: number): Array<[string, string]> {
  const fine = addressRanges(Math.max(1, Math.floor(slices)) * 4)
  const ranges: Array<[string, string]> = [fine[0]!]
  for (let i = 1; i < fine.length; i += 4) ranges.push([fine[i]![0], fine[Math.min(i + 3, fine.length - 1)]![1]])
  return ranges
}
