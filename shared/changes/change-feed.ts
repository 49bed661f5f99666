import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { DAY_MS } from '../platform/time-units.js'
import { queryRows } from '../storage/query-rows.js'
import { CHANGES_KEPT_DAYS } from '../storage/schema/changes-schema.js'
import { localTable } from '../storage/schema/cluster-ddl.js'
import type { Tables } from '../storage/tables.js'

/**
 * Reading the change feed (storage/schema/changes-schema.ts). A position is a block number
 * of the changes table; a consumer reads the changes in (from, to], where `to` is the
 * position when it starts reading, and records `to` once it has acted on them. Every change
 * at or below `to` is visible by then, and so is the row it names (its part committed
 * first), and no change at or below `to` can commit later. A consumer that stops before
 * recording reads the same changes again: consumers act idempotently.
 */

/** The changes in a range: parameters changes_from and changes_to (changeRangeParams). */
export const IN_CHANGE_RANGE = '_block_number > {changes_from:UInt64} AND _block_number <= {changes_to:UInt64}'

export interface ChangeRange {
  /** Exclusive. */
  from: number
  /** Inclusive: the feed's position when the range was taken. */
  to: number
}

/** How old a recorded position may be for every change after it to be still kept; an older one starts afresh. */
export const CHANGES_READABLE_MS = (CHANGES_KEPT_DAYS - 1) * DAY_MS

/** The changes after `from` up to `position`. A `from` above it means the feed's counter started again (its table was emptied): the range starts at 0. */
export function rangeUpTo(from: number, position: number): ChangeRange {
  return { from: from > position ? 0 : from, to: position }
}

export function changeRangeParams(range: ChangeRange): { changes_from: number; changes_to: number } {
  return { changes_from: range.from, changes_to: range.to }
}

/**
 * The feed's position now: the highest block number of its parts (0 while it has none). On
 * a cluster, the parts of this server's shard (the local table): positions are per shard
 * there and not in commit order (docs/architecture.md, How change is tracked).
 */
export async function feedPosition(clickhouse: ClickHouseClient, t: Tables): Promise<number> {
  return blockPosition(clickhouse, t, t.changes)
}

/** The highest block number of a table's parts (0 while it has none), of its local table on a cluster (`qualified`: database.table). */
export async function blockPosition(clickhouse: ClickHouseClient, t: Tables, qualified: string): Promise<number> {
  const table = qualified.slice(t.database.length + 1)
  const [row] = await queryRows<{ position: string }>(
    clickhouse,
    `SELECT toString(max(max_block_number)) AS position FROM system.parts
     WHERE database = {database:String} AND table IN ({table:String}, {local:String}) AND active`,
    { database: t.database, table, local: localTable(table) },
  )
  return Number(row?.position ?? 0)
}

/** The changes after `from` up to the feed's position now (rangeUpTo). */
export async function changesSince(clickhouse: ClickHouseClient, t: Tables, from: number): Promise<ChangeRange> {
  return rangeUpTo(from, await feedPosition(clickhouse, t))
}

/**
 * Where `consumer` recorded it had read the feed to: 0 when it never did, null when it did
 * longer ago than the feed keeps changes (some may be gone: the consumer starts afresh).
 */
export async function recordedPosition(clickhouse: ClickHouseClient, t: Tables, consumer: string): Promise<number | null> {
  const recorded = await recordedRow(clickhouse, t, consumer)
  return recorded === undefined ? 0 : keptPosition(recorded)
}

/**
 * Where `consumer` reads on from, or null when it has nothing to read on from: it never
 * recorded a position, or did longer ago than the feed keeps changes. For a consumer that
 * starts afresh either way.
 */
export async function positionToReadOn(clickhouse: ClickHouseClient, t: Tables, consumer: string): Promise<number | null> {
  const recorded = await recordedRow(clickhouse, t, consumer)
  return recorded === undefined ? null : keptPosition(recorded)
}

interface RecordedRow {
  position: string
  recorded_ms: string
}

async function recordedRow(clickhouse: ClickHouseClient, t: Tables, consumer: string): Promise<RecordedRow | undefined> {
  const [row] = await queryRows<RecordedRow>(
    clickhouse,
    `SELECT toString(position) AS position, toString(toUnixTimestamp64Milli(recorded_at)) AS recorded_ms
     FROM ${t.changePositions} FINAL WHERE consumer = {consumer:String}`,
    { consumer },
  )
  return row
}

const keptPosition = (row: RecordedRow): number | null => (Number(row.recorded_ms) < Date.now() - CHANGES_READABLE_MS ? null : Number(row.position))

export async function recordPosition(clickhouse: ClickHouseClient, t: Tables, consumer: string, position: number): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${t.changePositions} (consumer, position, recorded_at) VALUES ({consumer:String}, {position:UInt64}, {at:DateTime64(3, 'UTC')})`,
    query_params: { consumer, position, at: dateTime64Param(Date.now()) },
  })
}
