import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { CANDLE_MS, CANDLES_PER_DAY, dateTime64Param, hoursBeforeSql, type TokenFilter } from '../shared/candles/candles.js'
import { queryNative, type NativeBlock } from '../shared/storage/native-format.js'
import type { Tables } from '../shared/storage/tables.js'
import { HOUR_MS } from '../shared/platform/time-units.js'
import { fourHourCandles, hourRowsSql, lastHourCloses, type CandleColumns } from './hour-candles.js'

/** A token's closed 4-hour candles, as the full recompute reads them. */
export interface TokenHistory {
  contractAddress: string
  /** Start (ms) of each 4-hour interval with an observation, ascending. */
  times: Float64Array
  /** The close of each of those intervals. */
  closes: Float64Array
  /**
   * The whole candles of the last seven intervals (the pivots' six, and the one before
   * them that undoLast restores): earlier candles reach the result through their close alone.
   */
  lastDay: CandleColumns
}

/** Which tokens a full read covers: a slice of the address space, or a list. */
export type HistoryFilter = { lo: string; hi: string } | { tokens: string[] }

/**
 * Every token's closed 4-hour candles in a slice of the address space (or of the given
 * tokens), from one pass over the stored one-hour candles in key order (FINAL), grouped
 * per token: its hours and closes, and the whole hours of the last seven intervals. The
 * answer comes in ClickHouse's Native format (columns of raw little-endian numbers: exact,
 * nothing to render or parse, one copy per column). The 4-hour closes and the last day's
 * candles are made from the hours here (hour-candles.ts), where ClickHouse's array
 * functions, or a second pass for the last day, cost more than the pass itself.
 */
export async function readHistories(
  clickhouse: ClickHouseClient,
  tables: Tables,
  filter: HistoryFilter,
  lastClosed: number,
): Promise<TokenHistory[]> {
  const which: TokenFilter = 'tokens' in filter ? 'tokens' : 'range'
  // The last seven candles: the pivots' six, and the one before them that taking the last candle back restores.
  const dayFrom = (lastClosed - CANDLES_PER_DAY * CANDLE_MS) / HOUR_MS
  const blocks = await queryNative(
    clickhouse,
    `SELECT token, groupArray(hour) AS hours, groupArray(close) AS closes, ${hourRowsSql('hour >= {dayFrom:UInt32}')} AS day
     FROM ${tables.candles1h} FINAL
     WHERE ${hoursBeforeSql(which)}
     GROUP BY token`,
    { ...filter, before: dateTime64Param(lastClosed + CANDLE_MS), dayFrom },
  )
  return blocks.flatMap(decodeHistories)
}

/**
 * The rows of one block as histories. The times and closes of every token of the block
 * share two arrays, each token viewing its part: a few allocations per block rather than
 * several per token.
 */
function decodeHistories(block: NativeBlock): TokenHistory[] {
  const tokens = block.strings('token')
  const hours = block.uint32Arrays('hours')
  const hourCloses = block.float64Arrays('closes')
  const days = fourHourCandles(block, 'day')
  const times = new Float64Array(hours.items.length)
  const closes = new Float64Array(hours.items.length)
  let end = 0
  return tokens.map((contractAddress, i) => {
    const from = i > 0 ? hours.ends[i - 1]! : 0
    const to = hours.ends[i]!
    const start = end
    end = lastHourCloses(hours.items.subarray(from, to), hourCloses.items.subarray(from, to), times, closes, start)
    return { contractAddress, times: times.subarray(start, end), closes: closes.subarray(start, end), lastDay: days[i]! }
  })
}
