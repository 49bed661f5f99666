import type { ClickHouseClient } from '../shared/clickhouse.js'
import { CANDLE_MS, candlesSql, dateTime64Param, walkCandleGrid } from '../shared/candles.js'
import type { Candle } from '../shared/domain.js'
import { IndicatorState } from '../shared/indicator-math/indicator-state.js'
import type { Tables } from '../shared/tables.js'
import { LAST_DAY_FIELDS, type TokenHistory } from './token-histories.js'

/**
 * The indicator state after a token's whole history, gaps filled up to `lastClosed`.
 * Only the last six candles' high, low and volume reach the result (the pivots), and the
 * seventh-last's the state's undo record, so earlier candles are fed with their close alone.
 */
export function stateFromHistory(history: TokenHistory, lastClosed: number): IndicatorState {
  const state = IndicatorState.empty()
  const { times, closes, lastDay } = history
  if (times.length === 0) return state
  let dayFrom = Infinity
  for (let j = 0; j < lastDay.length; j += LAST_DAY_FIELDS) dayFrom = Math.min(dayFrom, lastDay[j]!)
  feedGrid(state, times, times[0]!, lastClosed, (time, i) => {
    const close = closes[i]!
    const j = time < dayFrom ? -1 : lastDayIndex(lastDay, time)
    if (j < 0) state.push(time, close, close, close, 0)
    else state.push(time, lastDay[j + 1]!, lastDay[j + 2]!, close, lastDay[j + 3]!)
  })
  return state
}

/** Where the candle starting at `time` begins in a TokenHistory's lastDay; -1 if it is not there. */
function lastDayIndex(lastDay: Float64Array, time: number): number {
  for (let j = 0; j < lastDay.length; j += LAST_DAY_FIELDS) if (lastDay[j] === time) return j
  return -1
}

/**
 * The closed 4-hour candles of every token (or of `tokens`, read by the primary key) from
 * `from` (ms, an interval start) up to `lastClosed`, grouped by token, oldest first: what
 * the incremental step reads.
 */
export async function readCandlesSince(
  clickhouse: ClickHouseClient,
  tables: Tables,
  from: number,
  lastClosed: number,
  tokens?: readonly string[],
): Promise<Map<string, Candle[]>> {
  const rs = await clickhouse.query({
    query: `SELECT token, bucket, open, high, low, close, volume FROM (${candlesSql(tables, tokens ? 'tokens' : 'all', CANDLE_MS, true)})
            ORDER BY token, bucket`,
    query_params: { from: dateTime64Param(from), before: dateTime64Param(lastClosed + CANDLE_MS), tokens: tokens ?? [] },
    format: 'JSONCompactEachRow',
  })
  const byToken = new Map<string, Candle[]>()
  for (const [token, bucket, open, high, low, close, volume] of await rs.json<[string, number, number, number, number, number, number]>()) {
    let candles = byToken.get(token)
    if (!candles) byToken.set(token, (candles = []))
    candles.push({ time: Number(bucket) * CANDLE_MS, open, high, low, close, volume })
  }
  return byToken
}

/** Feeds a state the intervals after its last one up to `lastClosed`: the new candles, gaps filled. */
export function advanceState(state: IndicatorState, candles: readonly Candle[], lastClosed: number): void {
  feedGrid(state, candles.map((c) => c.time), state.lastTime + CANDLE_MS, lastClosed, (time, i) => {
    const c = candles[i]!
    state.push(time, c.high, c.low, c.close, c.volume)
  })
}

/** Feeds the grid from `firstTime` to `lastClosed`: observed intervals through `observed`, gaps flat at the last close. */
function feedGrid(
  state: IndicatorState,
  times: ArrayLike<number>,
  firstTime: number,
  lastClosed: number,
  observed: (time: number, index: number) => void,
): void {
  walkCandleGrid(times, firstTime, lastClosed, CANDLE_MS, (time, i) => {
    if (i >= 0) return observed(time, i)
    const { lastClose } = state
    state.push(time, lastClose, lastClose, lastClose, 0)
  })
}

/** [lo, hi) ranges of lower-case addresses ("0x" + hex), by their leading hex digits. */
export function addressRanges(slices: number): Array<[string, string]> {
  const n = Math.min(Math.max(1, Math.floor(slices)), 256)
  const bound = (i: number) => '0x' + Math.floor((i * 256) / n).toString(16).padStart(2, '0')
  return Array.from({ length: n }, (_, i): [string, string] => [i === 0 ? '' : bound(i), i === n - 1 ? '\u{10ffff}' : bound(i + 1)])
}
