import { CANDLE_MS } from '../shared/candles/candles.js'
import type { NativeBlock } from '../shared/storage/native-format.js'
import { HOUR_MS } from '../shared/platform/time-units.js'

const HOURS_PER_CANDLE = CANDLE_MS / HOUR_MS

/** 4-hour candles as columns, ascending by start: what the engine feeds its states (open is not needed). */
export interface CandleColumns {
  /** Start (ms) of each interval with an observation. */
  times: Float64Array
  highs: Float64Array
  lows: Float64Array
  closes: Float64Array
  volumes: Float64Array
}

export const NO_CANDLES: CandleColumns = {
  times: new Float64Array(0),
  highs: new Float64Array(0),
  lows: new Float64Array(0),
  closes: new Float64Array(0),
  volumes: new Float64Array(0),
}

/** The ClickHouse type of a token's stored hours as the engine reads them: (hour, high, low, close, volume) per hour. */
export const HOUR_ROWS_TYPE = 'Array(Tuple(UInt32, Float64, Float64, Float64, Float64))'

/** SQL of a HOUR_ROWS_TYPE value from rows with token, hour, high, low, close, volume, gathered per token. */
export function hourRowsSql(condition?: string): string {
  const tuple = '(hour, high, low, close, volume)'
  return condition ? `groupArrayIf(${tuple}, ${condition})` : `groupArray(${tuple})`
}

/**
 * The 4-hour candles of each row of a Native block, from its column `name` (of
 * HOUR_ROWS_TYPE: one token's stored hours, distinct, in any order): candlesSql's rule,
 * here for the engine: high = the highest high, low = the lowest low, close = the last
 * hour's close, volume = the sum of the hours' volumes, added in hour order, so a
 * candle's bits do not depend on the order ClickHouse gathered its hours in. The full
 * recompute and the incremental step both take their candles from here: the same hours
 * give them the same candles, to the bit. The candles of every row share one set of
 * arrays (each row views its part).
 */
export function fourHourCandles(block: NativeBlock, name: string): CandleColumns[] {
  const column = block.column(name, HOUR_ROWS_TYPE)
  if (column.kind !== 'Array' || column.items.kind !== 'Tuple') throw new Error(`column ${name} did not decode as ${HOUR_ROWS_TYPE}`)
  const [hours, highs, lows, closes, volumes] = column.items.elements
  if (hours?.kind !== 'UInt32' || highs?.kind !== 'Float64' || lows?.kind !== 'Float64' || closes?.kind !== 'Float64' || volumes?.kind !== 'Float64') {
    throw new Error(`column ${name} did not decode as ${HOUR_ROWS_TYPE}`)
  }
  const rows = hours.values.length
  const out = {
    times: new Float64Array(rows),
    highs: new Float64Array(rows),
    lows: new Float64Array(rows),
    closes: new Float64Array(rows),
    volumes: new Float64Array(rows),
  }
  const candles: CandleColumns[] = []
  let end = 0
  for (let row = 0; row < block.rows; row++) {
    const from = row > 0 ? column.ends[row - 1]! : 0
    const to = column.ends[row]!
    const order = sortedPositions(hours.values, from, to)
    const start = end
    for (let k = 0; k < to - from; k++) {
      const i = order ? order[k]! : from + k
      const bucket = Math.floor(hours.values[i]! / HOURS_PER_CANDLE)
      if (k === 0 || out.times[end - 1] !== bucket * CANDLE_MS) {
        out.times[end] = bucket * CANDLE_MS
        out.highs[end] = highs.values[i]!
        out.lows[end] = lows.values[i]!
        out.volumes[end++] = volumes.values[i]!
      } else {
        out.highs[end - 1] = Math.max(out.highs[end - 1]!, highs.values[i]!)
        out.lows[end - 1] = Math.min(out.lows[end - 1]!, lows.values[i]!)
        out.volumes[end - 1] = out.volumes[end - 1]! + volumes.values[i]!
      }
      out.closes[end - 1] = closes.values[i]!
    }
    candles.push({
      times: out.times.subarray(start, end),
      highs: out.highs.subarray(start, end),
      lows: out.lows.subarray(start, end),
      closes: out.closes.subarray(start, end),
      volumes: out.volumes.subarray(start, end),
    })
  }
  return candles
}

/**
 * The 4-hour closes of one token's stored hours (distinct, in any order) and their closes:
 * each interval's close is its last hour's close (fourHourCandles' rule, for the close
 * alone: the full recompute needs only closes before the last day). Writes the intervals'
 * starts (ms) and closes, ascending, into `times` and `closes` from `at`; returns where
 * they end.
 */
export function lastHourCloses(hours: Uint32Array, hourCloses: Float64Array, times: Float64Array, closes: Float64Array, at: number): number {
  const order = sortedPositions(hours, 0, hours.length)
  const n = hours.length
  let end = at
  for (let k = 0; k < n; k++) {
    const i = order ? order[k]! : k
    const bucket = Math.floor(hours[i]! / HOURS_PER_CANDLE)
    if (k + 1 < n && Math.floor(hours[order ? order[k + 1]! : k + 1]! / HOURS_PER_CANDLE) === bucket) continue
    times[end] = bucket * CANDLE_MS
    closes[end++] = hourCloses[i]!
  }
  return end
}

/**
 * Null when values[from..to) are ascending already, which they almost always are (only a
 * token whose rows two threads gathered is not); otherwise those positions in ascending
 * order of value.
 */
function sortedPositions(values: Uint32Array, from: number, to: number): number[] | null {
  let i = from + 1
  while (i < to && values[i]! >= values[i - 1]!) i++
  if (i >= to) return null
  return Array.from({ length: to - from }, (_, k) => from + k).sort((a, b) => values[a]! - values[b]!)
}
