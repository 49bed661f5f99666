import { dateTime64Param as msParam } from '../platform/datetime-param.js'
import { listSet } from '../storage/list-param.js'
import { rawHourCandlesSql } from './raw-hour-candles.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import { changeRangeParams, changesSince, IN_CHANGE_RANGE, recordedPosition, recordPosition } from '../changes/change-feed.js'
import { ALL_HOURS } from '../storage/schema/candles-schema.js'
import type { Tables } from '../storage/tables.js'
import { HOUR_MS } from '../platform/time-units.js'

/** The candle refresh's name among the change feed's consumers. */
const CONSUMER = 'candles'

export interface CandleRefreshResult {
  /** Tokens whose stored candles were re-aggregated. */
  tokens: string[]
  /** The earliest changed hour's start (ms) per token; null for a token-wide change. */
  earliestChange: Map<string, number | null>
}

interface ChangeSummary {
  n: string | number
  lo: number
  hi: number
  hourTokens: string[]
  wholeTokens: string[]
}

/**
 * The changed (token, hour) buckets of a range of the feed: a swap's legs and a price at
 * their hour, every hour (ALL_HOURS) of a token whose metadata changed. Parameters: those
 * of the range (IN_CHANGE_RANGE), and `token` when `tokenFilter` names it.
 */
const changedBuckets = (t: Tables, tokenFilter: string) =>
  `SELECT token, if(kind = 'token', toUInt32(${ALL_HOURS}), toUInt32(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}))) AS hour
   FROM ${t.changes} ARRAY JOIN tokens AS token
   WHERE ${IN_CHANGE_RANGE} AND kind IN ('swap', 'price', 'token') AND ${tokenFilter}`

/**
 * Re-aggregates the one-hour candles of every (token, hour) bucket the change feed names
 * since the refresh last recorded its position, from the deduplicated raw rows; a bucket
 * left without observations (a retracted swap) is retracted too. With `token`, only that
 * token's changes (what a reader needs before reading it), and nothing is recorded;
 * without, every change, and the position reached is recorded so the next refresh starts
 * there. Idempotent: running it twice, or in two processes at once, stores the same
 * candles (a recomputation is versioned by when it took the feed's position, so the later read wins).
 */
export async function refreshCandles(
  clickhouse: ClickHouseClient,
  tables: Tables,
  options: { token?: string } = {},
): Promise<CandleRefreshResult> {
  const recorded = await recordedPosition(clickhouse, tables, CONSUMER)
  // Never recorded within the feed's retention: every token with candles, swaps or prices is changed whole.
  if (recorded === null && options.token === undefined) await markEveryTokenChanged(clickhouse, tables)
  const range = await changesSince(clickhouse, tables, recorded ?? 0)
  // Stamped after the position is taken: of two refreshes at once, the one whose rows win
  // read to the higher position (as token-flows-refresh.ts does).
  const readAt = Date.now()
  const tokenFilter = options.token === undefined ? '1' : 'token = {token:String}'
  const buckets = changedBuckets(tables, tokenFilter)
  const summary = await first<ChangeSummary>(
    clickhouse,
    `SELECT count() AS n,
       minIf(hour, hour != ${ALL_HOURS}) AS lo, maxIf(hour, hour != ${ALL_HOURS}) AS hi,
       groupUniqArrayIf(token, hour != ${ALL_HOURS}) AS hourTokens,
       groupUniqArrayIf(token, hour = ${ALL_HOURS}) AS wholeTokens
     FROM (${buckets})`,
    { ...changeRangeParams(range), token: options.token ?? '' },
  )
  const result: CandleRefreshResult = { tokens: [], earliestChange: new Map() }
  const record = async () => {
    if (options.token === undefined && range.to !== recorded) await recordPosition(clickhouse, tables, CONSUMER, range.to)
  }
  if (summary === undefined || Number(summary.n) === 0) {
    await record()
    return result
  }
  const params = { ...changeRangeParams(range), token: options.token ?? '', computedAt: readAt }
  const marks = `token IN ${listSet('tokens')}`

  if (summary.hourTokens.length > 0) {
    const hourBuckets = `SELECT DISTINCT token, hour FROM (${buckets}) WHERE ${marks} AND hour != ${ALL_HOURS}`
    await reaggregate(clickhouse, tables, {
      pairs: hourBuckets,
      params: { ...params, tokens: summary.hourTokens, from: msParam(summary.lo * HOUR_MS), before: msParam((summary.hi + 1) * HOUR_MS) },
    })
    for (const [token, hour] of await earliestHours(clickhouse, hourBuckets, { ...params, tokens: summary.hourTokens })) {
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
  await record()
  return result
}

/** A token-wide change for every token with candles, swaps or prices. */
async function markEveryTokenChanged(clickhouse: ClickHouseClient, tables: Tables): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${tables.changes} (kind, tokens)
      SELECT 'token', [token] FROM (
        SELECT DISTINCT token FROM ${tables.candles1h}
        UNION DISTINCT SELECT DISTINCT token_address AS token FROM ${tables.swapLegs}
        UNION DISTINCT SELECT DISTINCT contract_address AS token FROM ${tables.prices})`,
  })
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

async function earliestHours(clickhouse: ClickHouseClient, buckets: string, params: Record<string, unknown>): Promise<[string, number][]> {
  const rs = await clickhouse.query({
    query: `SELECT token, min(hour) AS first_hour FROM (${buckets}) GROUP BY token`,
    query_params: params,
    format: 'JSONCompactEachRow',
  })
  return rs.json<[string, number]>()
}

async function first<T>(clickhouse: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T | undefined> {
  return (await queryRows<T>(clickhouse, query, params))[0]
}
