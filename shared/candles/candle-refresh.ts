import { dateTime64Param as msParam } from '../platform/datetime-param.js'
import { listSet } from '../storage/list-param.js'
import { rawHourCandlesSql } from './raw-hour-candles.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import { ALL_HOURS } from '../storage/schema/candles-schema.js'
import type { Tables } from '../storage/tables.js'
import { HOUR_MS } from '../platform/time-units.js'

/**
 * How late an insert may commit its marks after their marked_at: a refresh records that
 * every mark older than its start minus this was seen, and the next one reads from there.
 */
const OVERLAP_MS = 5_000
const STATE = 'marks'

export interface CandleRefreshResult {
  /** Tokens whose stored candles were re-aggregated. */
  tokens: string[]
  /** The earliest changed hour's start (ms) per token; null for a token-wide change. */
  earliestChange: Map<string, number | null>
}

interface MarkSummary {
  n: string | number
  until: string
  lo: number
  hi: number
  hourTokens: string[]
  wholeTokens: string[]
}

/**
 * Re-aggregates the one-hour candles of every (token, hour) bucket marked changed since
 * the last full refresh (schema/candles-schema.ts), from the deduplicated raw rows; a
 * bucket left without observations (a retracted swap) is retracted too. With `token`,
 * only that token's marks (what a reader needs before reading it); without, every mark,
 * and the point reached is recorded so the next refresh starts there.
 * Idempotent: running it twice, or in two processes at once, stores the same candles (a
 * recomputation is versioned by when it started reading, so the later read wins).
 */
export async function refreshCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  options: { token?: string } = {},
): Promise<CandleRefreshResult> {
  const startedAt = Date.now()
  const since = await marksSeenUntil(clickhouse, tables)
  const tokenFilter = options.token === undefined ? '1' : 'token = {token:String}'
  // Only marks the summary below saw (a mark committing meanwhile waits for the next refresh).
  const marks = `marked_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
    AND marked_at <= fromUnixTimestamp64Milli({until:Int64}, 'UTC') AND ${tokenFilter}
    AND token IN ${listSet('tokens')}`
  const summary = await first<MarkSummary>(
    clickhouse,
    `SELECT count() AS n, toString(max(toUnixTimestamp64Milli(marked_at))) AS until,
       minIf(hour, hour != ${ALL_HOURS}) AS lo, maxIf(hour, hour != ${ALL_HOURS}) AS hi,
       groupUniqArrayIf(token, hour != ${ALL_HOURS}) AS hourTokens,
       groupUniqArrayIf(token, hour = ${ALL_HOURS}) AS wholeTokens
     FROM ${tables.candleMarks}
     WHERE marked_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC') AND ${tokenFilter}`,
    { since, token: options.token ?? '' },
  )
  const result: CandleRefreshResult = { tokens: [], earliestChange: new Map() }
  const seenUntil = startedAt - OVERLAP_MS
  if (summary === undefined || Number(summary.n) === 0) {
    if (options.token === undefined && seenUntil > since) await recordMarksSeenUntil(clickhouse, tables, seenUntil)
    return result
  }
  const params = { since, until: Number(summary.until), token: options.token ?? '', computedAt: startedAt }

  if (summary.hourTokens.length > 0) {
    await reaggregate(clickhouse, tables, {
      pairs: `SELECT DISTINCT token, hour FROM ${tables.candleMarks} WHERE ${marks} AND hour != ${ALL_HOURS}`,
      params: { ...params, tokens: summary.hourTokens, from: msParam(summary.lo * HOUR_MS), before: msParam((summary.hi + 1) * HOUR_MS) },
    })
    for (const [token, hour] of await earliestHours(clickhouse, tables, marks, { ...params, tokens: summary.hourTokens })) {
      result.earliestChange.set(token, hour * HOUR_MS)
    }
  }
  if (summary.wholeTokens.length > 0) {
    // A token's decimals changed: every hour it has, stored or observed, is recomputed.
    const whole = { ...params, tokens: summary.wholeTokens, from: msParam(0), before: msParam(Date.UTC(2300, 0, 1)) }
    await reaggregate(clickhouse, tables, {
      pairs: `SELECT token, hour FROM ${tables.candles1h} FINAL WHERE token IN ${listSet('tokens')}
              UNION DISTINCT SELECT token, bucket AS hour FROM (${rawHourCandlesSql(tables)})`,
      params: whole,
    })
    for (const token of summary.wholeTokens) result.earliestChange.set(token, null)
  }
  result.tokens = [...result.earliestChange.keys()]
  if (options.token === undefined && seenUntil > since) await recordMarksSeenUntil(clickhouse, tables, seenUntil)
  return result
}

async function reaggregate(
  clickhouse: ClickHouseClient,
  tables: Tables,
  { pairs, params }: { pairs: string; params: Record<string, unknown> },
): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${tables.candles1h} (token, hour, open, high, low, close, volume, computed_at, is_deleted)
      SELECT m.token, m.hour, c.open, c.high, c.low, c.close, c.volume,
             fromUnixTimestamp64Milli({computedAt:Int64}, 'UTC'), toUInt8(c.token = '')
      FROM (${pairs}) AS m
      LEFT JOIN (${rawHourCandlesSql(tables)}) AS c ON c.token = m.token AND c.bucket = m.hour
      SETTINGS join_use_nulls = 0`,
    query_params: params,
  })
}

async function earliestHours(
  clickhouse: ClickHouseClient,
  tables: Tables,
  marks: string,
  params: Record<string, unknown>,
): Promise<[string, number][]> {
  const rs = await clickhouse.query({
    query: `SELECT token, min(hour) AS first_hour FROM ${tables.candleMarks} WHERE ${marks} AND hour != ${ALL_HOURS} GROUP BY token`,
    query_params: params,
    format: 'JSONCompactEachRow',
  })
  return rs.json<[string, number]>()
}

async function marksSeenUntil(clickhouse: ClickHouseClient, tables: Tables): Promise<number> {
  const row = await first<{ until: string }>(
    clickhouse,
    `SELECT toString(toUnixTimestamp64Milli(marks_until)) AS until FROM ${tables.candleRefreshState} FINAL WHERE name = {name:String}`,
    { name: STATE },
  )
  return row === undefined ? 0 : Number(row.until)
}

async function recordMarksSeenUntil(clickhouse: ClickHouseClient, tables: Tables, until: number): Promise<void> {
  await clickhouse.insert({
    table: tables.candleRefreshState,
    values: [{ name: STATE, marks_until: until, updated_at: Date.now() }],
    format: 'JSONEachRow',
  })
}

async function first<T>(clickhouse: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T | undefined> {
  return (await queryRows<T>(clickhouse, query, params))[0]
}
