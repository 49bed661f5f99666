import { changeRangeParams, changesSince, IN_CHANGE_RANGE, positionToReadOn, recordPosition } from '../changes/change-feed.js'
import { HOUR_MS } from '../platform/time-units.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { HOUR_OF_TIMESTAMP, hourFlowsSql } from './hour-flows-sql.js'

/** The token flows' name among the change feed's consumers. */
const CONSUMER = 'token-flows'

/** Hours re-aggregated per statement: a backfill's changes, or a rebuild, go a month at a time. */
const CHUNK_HOURS = 720

export interface TokenFlowsRefreshResult {
  /** The feed position the stored flows now follow. */
  position: number
  /** Every bucket was re-aggregated from the swaps (no position to read on from). */
  rebuilt: boolean
}

/** The chunk's bounds: parameters fromHour, beforeHour (hours) and fromMs, beforeMs. */
const chunkParams = (chunk: number) => ({
  fromHour: chunk * CHUNK_HOURS,
  beforeHour: (chunk + 1) * CHUNK_HOURS,
  fromMs: chunk * CHUNK_HOURS * HOUR_MS,
  beforeMs: (chunk + 1) * CHUNK_HOURS * HOUR_MS,
})
const IN_CHUNK = 'hour >= {fromHour:UInt32} AND hour < {beforeHour:UInt32}'

/** The (token, hour) buckets a range of the feed names: each leg of a swap version stored or retracted. */
const changedBuckets = (t: Tables) =>
  `SELECT DISTINCT token, ${HOUR_OF_TIMESTAMP} AS hour
   FROM ${t.changes} ARRAY JOIN tokens AS token
   WHERE ${IN_CHANGE_RANGE} AND kind = 'swap' AND token != ''`

/** Every bucket of the chunk that has or had a swap leg, or has stored flows. */
const everyBucket = (t: Tables) =>
  `SELECT DISTINCT token_address AS token, ${HOUR_OF_TIMESTAMP} AS hour FROM ${t.swapLegs}
   WHERE timestamp >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({beforeMs:Int64}, 'UTC')
   UNION DISTINCT SELECT DISTINCT token, hour FROM ${t.tokenWalletHourFlows} WHERE ${IN_CHUNK}`

/** The chunks of a rebuild: those with a swap leg or stored flows. */
const everyChunk = (t: Tables) =>
  `SELECT DISTINCT intDiv(${HOUR_OF_TIMESTAMP}, ${CHUNK_HOURS}) AS chunk FROM ${t.swapLegs}
   UNION DISTINCT SELECT DISTINCT intDiv(hour, ${CHUNK_HOURS}) AS chunk FROM ${t.tokenWalletHourFlows}`

/**
 * Re-aggregates the stored token flows of every (token, hour) bucket the change feed names
 * since this consumer last recorded its position, from the deduplicated swaps, and records
 * the position it read to. A wallet no longer in a bucket has its row retracted. With no
 * position to read on from (never recorded, or longer ago than the feed keeps changes),
 * every bucket is rebuilt. Idempotent: running it twice, or in two processes at once,
 * stores the same rows (a recomputation is versioned by when it took the feed's position,
 * so the later read wins).
 */
export async function refreshTokenFlows(clickhouse: ClickHouseClient, tables: Tables): Promise<TokenFlowsRefreshResult> {
  const recorded = await positionToReadOn(clickhouse, tables, CONSUMER)
  const rebuilt = recorded === null
  const range = await changesSince(clickhouse, tables, recorded ?? 0)
  // Stamped after the position is taken, not before: of two refreshes at once, the one whose
  // rows win then read to the higher position, so a swap only the other one saw is after
  // both positions and is re-aggregated by the next refresh, whichever records last.
  const readAt = Date.now()
  const buckets = rebuilt ? everyBucket(tables) : changedBuckets(tables)
  const rangeParams = changeRangeParams(range)
  const chunks = rebuilt ? everyChunk(tables) : `SELECT DISTINCT intDiv(hour, ${CHUNK_HOURS}) AS chunk FROM (${buckets})`
  for (const chunk of await chunksOf(clickhouse, chunks, rangeParams)) {
    await reaggregate(clickhouse, tables, `SELECT token, hour FROM (${buckets}) WHERE ${IN_CHUNK}`, {
      ...rangeParams,
      ...chunkParams(chunk),
      computedAt: readAt,
    })
  }
  if (range.to !== recorded) await recordPosition(clickhouse, tables, CONSUMER, range.to)
  return { position: range.to, rebuilt }
}

async function chunksOf(clickhouse: ClickHouseClient, chunks: string, params: ReturnType<typeof changeRangeParams>): Promise<number[]> {
  const rows = await queryRows<{ chunk: number | string }>(clickhouse, `SELECT chunk FROM (${chunks}) ORDER BY chunk`, params)
  return rows.map((r) => Number(r.chunk))
}

/**
 * Writes the buckets' rows as the swaps give them now, and a retraction for every stored
 * row of the buckets whose wallet the swaps no longer give (the stored rows join with
 * zeros: a key only they bring is retracted).
 */
async function reaggregate(clickhouse: ClickHouseClient, tables: Tables, buckets: string, params: Record<string, unknown>): Promise<void> {
  const flows = tables.tokenWalletHourFlows
  await clickhouse.command({
    query: `INSERT INTO ${flows} (token, hour, wallet_address, swaps, swaps_without_usd, buys, sells,
                                  bought_raw, sold_raw, bought_usd, sold_usd, computed_at, is_deleted)
      SELECT token, hour, wallet_address, sum(swaps), sum(swaps_without_usd), sum(buys), sum(sells),
             sum(bought_raw), sum(sold_raw), sum(bought_usd), sum(sold_usd),
             fromUnixTimestamp64Milli({computedAt:Int64}, 'UTC'), toUInt8(max(present) = 0)
      FROM (
        SELECT *, toUInt8(1) AS present FROM (${hourFlowsSql(tables, buckets)})
        UNION ALL
        SELECT token, hour, wallet_address, toUInt32(0), toUInt32(0), toUInt32(0), toUInt32(0),
               toUInt256(0), toUInt256(0), toFloat64(0), toFloat64(0), toUInt8(0)
        FROM ${flows} FINAL
        WHERE ${IN_CHUNK} AND token IN (SELECT token FROM (${buckets}))
          AND (token, hour) IN (SELECT token, hour FROM (${buckets}))
      )
      GROUP BY token, hour, wallet_address`,
    query_params: params,
  })
}
