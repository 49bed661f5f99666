import type { ClickHouseClient } from '../shared/clickhouse.js'
import {
  CANDLE_MS,
  CANDLES_PER_DAY,
  candlesSql,
  dateTime64Param,
  tokenFilterSql,
  walkCandleGrid,
  type TokenFilter,
} from '../shared/candles.js'
import type { Candle } from '../shared/domain.js'
import { IndicatorState } from '../shared/indicator-math/indicator-state.js'
import type { Tables } from '../shared/tables.js'
import { HOUR_MS } from '../shared/time-units.js'

const HOURS_PER_CANDLE = CANDLE_MS / HOUR_MS

/** A tail candle as it comes over the wire: [bucket, high, low, close, volume]. */
type TailRow = [number, number, number, number, number]
/**
 * One token's history as it comes over the wire: token; the 4-hour buckets with an
 * observation (just [first] when they are contiguous); their closes as base64 of their
 * little-endian Float64 bytes; the candles of the last day.
 */
type WireRow = [string, number[], string, TailRow[]]

/** A token's closed 4-hour candles, as the full recompute reads them. */
export interface TokenHistory {
  contractAddress: string
  /** Start (ms) of each 4-hour interval with an observation, ascending. */
  times: number[]
  closes: Float64Array
  /** High, low and volume of the last seven candles (the pivots, and undoLast), by start (ms). */
  lastDay: Map<number, { high: number; low: number; volume: number }>
}

/** Which tokens a full read covers: a slice of the address space, or a list. */
export type HistoryFilter = { lo: string; hi: string } | { tokens: string[] }

/**
 * Every token's closed 4-hour closes in a slice of the address space (or of the given
 * tokens), grouped per token inside ClickHouse: one pass over the stored one-hour candles
 * in key order, the close of a 4-hour interval being its last hour's close (exactly
 * candlesSql's argMax(close, hour), without a hash aggregation over every interval); the
 * last day's candles (pivots) come from candlesSql itself. The closes travel as the
 * base64 of their raw Float64 bytes: exact, and far cheaper to produce and decode than
 * decimal text (ClickHouse runs little-endian on all its platforms).
 */
export async function readHistories(
  clickhouse: ClickHouseClient,
  tables: Tables,
  filter: HistoryFilter,
  lastClosed: number,
): Promise<TokenHistory[]> {
  const which: TokenFilter = 'tokens' in filter ? 'tokens' : 'range'
  const before = dateTime64Param(lastClosed + CANDLE_MS)
  const next = `arrayPushBack(arrayPopFront(bs), 0)`
  const rs = await clickhouse.query({
    query: `
      SELECT s.token, if(length(b) = b[-1] - b[1] + 1, [b[1]], b) AS buckets, closes, t.tail
      FROM (
        SELECT token, arrayFilter((x, n) -> x != n, bs, ${next}) AS b,
               base64Encode(arrayStringConcat(arrayMap(x -> reinterpretAsFixedString(x),
                 arrayFilter((c, x, n) -> x != n, cs, bs, ${next})))) AS closes
        FROM (
          SELECT token, arrayMap(h -> toUInt32(intDiv(h, ${HOURS_PER_CANDLE})), arraySort(groupArray(hour))) AS bs,
                 arraySort((c, h) -> h, groupArray(close), groupArray(hour)) AS cs
          FROM ${tables.candles1h} FINAL
          WHERE hour < intDiv(toUnixTimestamp64Milli({before:DateTime64(3)}), ${HOUR_MS}) AND ${tokenFilterSql(which)}
          GROUP BY token
        )
      ) AS s
      LEFT JOIN (
        SELECT token, groupArray((bucket, high, low, close, volume)) AS tail
        FROM (${candlesSql(tables, which, CANDLE_MS, true)})
        GROUP BY token
      ) AS t ON t.token = s.token`,
    // The last seven candles: the pivots' six, and the one before them that taking the last candle back restores.
    query_params: { ...filter, before, from: dateTime64Param(lastClosed - CANDLES_PER_DAY * CANDLE_MS) },
    format: 'JSONCompactEachRow',
  })
  return (await rs.json<WireRow>()).map(decodeHistory)
}

function decodeHistory([contractAddress, buckets, wireCloses, tail]: WireRow): TokenHistory {
  const bytes = Buffer.from(wireCloses, 'base64')
  if (bytes.length % 8 !== 0) throw new Error(`closes of ${contractAddress}: ${bytes.length} bytes is not a whole number of Float64`)
  // Copied into a fresh, 8-byte aligned buffer: Buffer.from may return a pooled slice.
  const aligned = new Uint8Array(bytes.length)
  aligned.set(bytes)
  const closes = new Float64Array(aligned.buffer)
  const first = buckets[0]!
  const times =
    buckets.length === 1 && closes.length > 1
      ? Array.from({ length: closes.length }, (_, i) => (first + i) * CANDLE_MS)
      : buckets.map((b) => b * CANDLE_MS)
  const lastDay = new Map<number, { high: number; low: number; volume: number }>()
  for (const [bucket, high, low, , volume] of tail ?? []) lastDay.set(Number(bucket) * CANDLE_MS, { high, low, volume })
  return { contractAddress, times, closes, lastDay }
}

/**
 * The indicator state after a token's whole history, gaps filled up to `lastClosed`.
 * Only the last six candles' high, low and volume reach the result (the pivots), and the
 * seventh-last's the state's undo record, so earlier candles are fed with their close alone.
 */
export function stateFromHistory(history: TokenHistory, lastClosed: number): IndicatorState {
  const state = IndicatorState.empty()
  const { times, closes, lastDay } = history
  if (times.length === 0) return state
  feedGrid(state, times, times[0]!, lastClosed, (time, i) => {
    const close = closes[i]!
    const day = lastDay.get(time)
    state.push(time, day?.high ?? close, day?.low ?? close, close, day?.volume ?? 0)
  })
  return state
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
