import type { ClickHouseClient } from '../shared/clickhouse.js'
import { CANDLE_MS, CANDLES_PER_DAY, candlesSql, dateTime64Param, tokenFilterSql, type TokenFilter } from '../shared/candles.js'
import { queryRowBinary, RowBinaryReader } from '../shared/row-binary.js'
import type { Tables } from '../shared/tables.js'
import { HOUR_MS } from '../shared/time-units.js'

const HOURS_PER_CANDLE = CANDLE_MS / HOUR_MS

/** Fields per candle of TokenHistory.lastDay: start (ms), high, low, volume. */
export const LAST_DAY_FIELDS = 4

/** A token's closed 4-hour candles, as the full recompute reads them. */
export interface TokenHistory {
  contractAddress: string
  /** Start (ms) of each 4-hour interval with an observation, ascending. */
  times: Float64Array
  /** The close of each of those intervals. */
  closes: Float64Array
  /**
   * The last seven candles (the pivots' six, and the one before them that undoLast
   * restores), in no particular order: LAST_DAY_FIELDS numbers each (start in ms, high,
   * low, volume). Earlier candles reach the result through their close alone.
   */
  lastDay: Float64Array
}

/** Which tokens a full read covers: a slice of the address space, or a list. */
export type HistoryFilter = { lo: string; hi: string } | { tokens: string[] }

/**
 * Every token's closed 4-hour closes in a slice of the address space (or of the given
 * tokens), one row per token, in two queries answered in RowBinary (raw little-endian
 * numbers: exact, nothing to render or parse):
 * - the closes: one pass over the stored one-hour candles in key order (FINAL), each
 *   token's hours and closes gathered as they are read; the close of a 4-hour interval is
 *   its last hour's close (exactly candlesSql's argMax(close, hour)), picked out here
 *   (hoursToCloses) rather than by array functions in ClickHouse, which cost more than
 *   the pass itself;
 * - the last day's candles (pivots) from candlesSql itself, as the incremental step reads
 *   its candles.
 */
export async function readHistories(
  clickhouse: ClickHouseClient,
  tables: Tables,
  filter: HistoryFilter,
  lastClosed: number,
): Promise<TokenHistory[]> {
  const which: TokenFilter = 'tokens' in filter ? 'tokens' : 'range'
  // The last seven candles: the pivots' six, and the one before them that taking the last candle back restores.
  const params = { ...filter, before: dateTime64Param(lastClosed + CANDLE_MS), from: dateTime64Param(lastClosed - CANDLES_PER_DAY * CANDLE_MS) }
  const closes = await queryRowBinary(clickhouse, closesSql(tables, which), params)
  const lastDays = decodeLastDays(await queryRowBinary(clickhouse, lastDaySql(tables, which), params))
  return decodeCloses(closes, lastDays)
}

/** token String, hours Array(UInt32), closes Array(Float64): every stored hour, in no guaranteed order (threads merge their groups). */
function closesSql(tables: Tables, which: TokenFilter): string {
  return `
    SELECT token, groupArray(hour), groupArray(close)
    FROM ${tables.candles1h} FINAL
    WHERE hour < intDiv(toUnixTimestamp64Milli({before:DateTime64(3)}), ${HOUR_MS}) AND ${tokenFilterSql(which)}
    GROUP BY token`
}

/** token String, candles Array(Tuple(bucket UInt32, high Float64, low Float64, volume Float64)). */
function lastDaySql(tables: Tables, which: TokenFilter): string {
  return `SELECT token, groupArray((bucket, high, low, volume)) FROM (${candlesSql(tables, which, CANDLE_MS, true)}) GROUP BY token`
}

function decodeLastDays(bytes: Buffer): Map<string, Float64Array> {
  const reader = new RowBinaryReader(bytes)
  const byToken = new Map<string, Float64Array>()
  while (reader.more) {
    const token = reader.string()
    const n = reader.length()
    const day = new Float64Array(n * LAST_DAY_FIELDS)
    for (let i = 0; i < day.length; i += LAST_DAY_FIELDS) {
      day[i] = reader.uint32() * CANDLE_MS
      day[i + 1] = reader.float64()
      day[i + 2] = reader.float64()
      day[i + 3] = reader.float64()
    }
    byToken.set(token, day)
  }
  return byToken
}

const NO_LAST_DAY = new Float64Array(0)

function decodeCloses(bytes: Buffer, lastDays: ReadonlyMap<string, Float64Array>): TokenHistory[] {
  const reader = new RowBinaryReader(bytes)
  const histories: TokenHistory[] = []
  while (reader.more) {
    const contractAddress = reader.string()
    const hours = reader.uint32Array()
    const closes = reader.float64Array()
    if (hours.length !== closes.length) throw new Error(`history of ${contractAddress}: ${hours.length} hours for ${closes.length} closes`)
    histories.push({ contractAddress, ...hoursToCloses(hours, closes), lastDay: lastDays.get(contractAddress) ?? NO_LAST_DAY })
  }
  return histories
}

/**
 * The 4-hour closes from one-hour ones (hours and their closes, distinct hours in any
 * order): each interval's close is its last hour's close. Ascending by interval.
 */
export function hoursToCloses(hours: Uint32Array, hourCloses: Float64Array): Pick<TokenHistory, 'times' | 'closes'> {
  if (!isAscending(hours)) [hours, hourCloses] = sortByHour(hours, hourCloses)
  const times = new Float64Array(hours.length)
  const closes = new Float64Array(hours.length)
  let n = 0
  for (let i = 0; i < hours.length; i++) {
    const bucket = Math.floor(hours[i]! / HOURS_PER_CANDLE)
    if (i + 1 < hours.length && Math.floor(hours[i + 1]! / HOURS_PER_CANDLE) === bucket) continue
    times[n] = bucket * CANDLE_MS
    closes[n++] = hourCloses[i]!
  }
  return { times: times.subarray(0, n), closes: closes.subarray(0, n) }
}

function isAscending(values: Uint32Array): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false
  return true
}

/** Hours and their closes in ascending order of hour (the rare token whose rows two threads gathered). */
function sortByHour(hours: Uint32Array, closes: Float64Array): [Uint32Array, Float64Array] {
  const order = Array.from(hours.keys()).sort((a, b) => hours[a]! - hours[b]!)
  return [Uint32Array.from(order, (i) => hours[i]!), Float64Array.from(order, (i) => closes[i]!)]
}
