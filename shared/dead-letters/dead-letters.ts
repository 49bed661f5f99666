import type { ClickHouseClient } from '../storage/clickhouse.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'

/**
 * The dead-letter table as its readers see it (the admin API, the dead-letters command,
 * the redrive): the row shape, filters and queries. Writing it is the ingest role's
 * (ingest/pipeline/dead-letter-store.ts).
 */

/**
 * How `payload` is to be read: 'json' (a record as a producer sent it, as JSON), 'ndjson'
 * (one line of an NDJSON file, as received) or 'csv' (one CSV record, as received, read
 * under the file's header `csv_header`).
 */
export type PayloadFormat = 'json' | 'ndjson' | 'csv'

/** One dead letter as stored (also the shape written). */
export interface DeadLetterRow {
  id: string
  record_type: string
  payload: string
  payload_format: PayloadFormat
  /** Line number in the source file (1-based; a CSV record's first line); null when not from a file. */
  line: number | null
  /** The header row of the CSV file a 'csv' payload was read under; '' otherwise. */
  csv_header: string
  reason: string
  source: string
  failed_at: number
  redriven_at: number | null
  updated_at: number
}

/** A dead letter as served (admin API, command). */
export interface DeadLetter {
  id: string
  record_type: string
  payload: string
  payload_format: PayloadFormat
  line: number | null
  csv_header: string | null
  reason: string
  source: string
  failed_at: string
  redriven_at: string | null
}

export interface DeadLetterFilter {
  type?: string
  /** The exact reason. */
  reason?: string
  /** The exact source (a producer name, a backfill file's path). */
  source?: string
  /** Only these ids. */
  ids?: readonly string[]
  /** Leave out the ones already re-driven (and not dead-lettered again since). */
  pendingOnly?: boolean
}

export interface DeadLetterCounts {
  total: number
  pending: number
  by_type: Array<{ record_type: string; count: number; pending: number }>
  /** The most frequent reasons first (at most the limit asked for). */
  by_reason: Array<{ reason: string; record_type: string; count: number; pending: number }>
  /** How many distinct (reason, record type) pairs there are in all. */
  distinct_reasons: number
}

interface StoredRow {
  id: string
  record_type: string
  payload: string
  payload_format: string
  line: string | number | null
  csv_header: string
  reason: string
  source: string
  failed_at_ms: string | number
  redriven_at_ms: string | number | null
}

const COLUMNS = `id, record_type, payload, payload_format, line, csv_header, reason, source,
  toUnixTimestamp64Milli(failed_at) AS failed_at_ms,
  if(isNull(redriven_at), NULL, toUnixTimestamp64Milli(assumeNotNull(redriven_at))) AS redriven_at_ms`

const WHERE = `({type:String} = '' OR record_type = {type:String})
  AND ({reason:String} = '' OR reason = {reason:String})
  AND ({source:String} = '' OR source = {source:String})
  AND (NOT {byIds:Bool} OR id IN {ids:Array(String)})
  AND (NOT {pendingOnly:Bool} OR isNull(redriven_at))`

function whereParams(filter: DeadLetterFilter): Record<string, unknown> {
  return {
    type: filter.type ?? '',
    reason: filter.reason ?? '',
    source: filter.source ?? '',
    byIds: filter.ids !== undefined,
    ids: filter.ids ?? [],
    pendingOnly: filter.pendingOnly ?? false,
  }
}

function toDeadLetter(r: StoredRow): DeadLetter {
  const format = isPayloadFormat(r.payload_format) ? r.payload_format : 'json'
  return {
    id: r.id,
    record_type: r.record_type,
    payload: r.payload,
    payload_format: format,
    line: r.line === null ? null : Number(r.line),
    csv_header: format === 'csv' ? r.csv_header : null,
    reason: r.reason,
    source: r.source,
    failed_at: new Date(Number(r.failed_at_ms)).toISOString(),
    redriven_at: r.redriven_at_ms === null ? null : new Date(Number(r.redriven_at_ms)).toISOString(),
  }
}

export function isPayloadFormat(value: string): value is PayloadFormat {
  return value === 'json' || value === 'ndjson' || value === 'csv'
}

/** Back to the stored shape, e.g. to write a newer version of the row. */
export function deadLetterRowOf(letter: DeadLetter, redrivenAt: number | null, updatedAt: number): DeadLetterRow {
  return {
    id: letter.id,
    record_type: letter.record_type,
    payload: letter.payload,
    payload_format: letter.payload_format,
    line: letter.line,
    csv_header: letter.csv_header ?? '',
    reason: letter.reason,
    source: letter.source,
    failed_at: Date.parse(letter.failed_at),
    redriven_at: redrivenAt,
    updated_at: updatedAt,
  }
}

export class DeadLetterReader {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  /** A page, newest first (then by id), with the exact total of the filter. */
  async page(filter: DeadLetterFilter, limit: number, offset: number): Promise<{ letters: DeadLetter[]; total: number }> {
    const [rows, total] = await Promise.all([
      queryRows<StoredRow>(
        this.clickhouse,
        `SELECT ${COLUMNS} FROM ${this.tables.deadLetters} FINAL WHERE ${WHERE}
          ORDER BY failed_at DESC, id LIMIT {limit:UInt64} OFFSET {offset:UInt64}`,
        { ...whereParams(filter), limit, offset },
      ),
      this.count(filter),
    ])
    return { letters: rows.map(toDeadLetter), total }
  }

  async count(filter: DeadLetterFilter = {}): Promise<number> {
    const [row] = await queryRows<{ n: string | number }>(
      this.clickhouse,
      `SELECT count() AS n FROM ${this.tables.deadLetters} FINAL WHERE ${WHERE}`,
      whereParams(filter),
    )
    return Number(row?.n ?? 0)
  }

  /**
   * The next `limit` dead letters after `afterId` in id order: a keyset walk, so a caller
   * holds one page at a time however many match, and a row written meanwhile under an id
   * already passed (a re-driven record failing again) is not read twice.
   */
  async after(filter: DeadLetterFilter, afterId: string, limit: number): Promise<DeadLetter[]> {
    const rows = await queryRows<StoredRow>(
      this.clickhouse,
      `SELECT ${COLUMNS} FROM ${this.tables.deadLetters} FINAL WHERE ${WHERE} AND id > {after:String}
        ORDER BY id LIMIT {limit:UInt64}`,
      { ...whereParams(filter), after: afterId, limit },
    )
    return rows.map(toDeadLetter)
  }

  /** Counts by record type and by reason (the `reasonLimit` most frequent), all and pending. */
  async counts(reasonLimit: number): Promise<DeadLetterCounts> {
    const table = this.tables.deadLetters
    type Grouped = { record_type: string; reason?: string; n: string | number; pending: string | number }
    const [byType, byReason, [distinct]] = await Promise.all([
      queryRows<Grouped>(
        this.clickhouse,
        `SELECT record_type, count() AS n, countIf(isNull(redriven_at)) AS pending
          FROM ${table} FINAL GROUP BY record_type ORDER BY n DESC, record_type`,
      ),
      queryRows<Grouped>(
        this.clickhouse,
        `SELECT reason, record_type, count() AS n, countIf(isNull(redriven_at)) AS pending
          FROM ${table} FINAL GROUP BY reason, record_type ORDER BY n DESC, reason, record_type LIMIT {limit:UInt64}`,
        { limit: reasonLimit },
      ),
      queryRows<{ n: string | number }>(
        this.clickhouse,
        `SELECT uniqExact(reason, record_type) AS n FROM ${table} FINAL`,
      ),
    ])
    const types = byType.map((r) => ({ record_type: r.record_type, count: Number(r.n), pending: Number(r.pending) }))
    return {
      total: types.reduce((sum, t) => sum + t.count, 0),
      pending: types.reduce((sum, t) => sum + t.pending, 0),
      by_type: types,
      by_reason: byReason.map((r) => ({
        reason: r.reason ?? '',
        record_type: r.record_type,
        count: Number(r.n),
        pending: Number(r.pending),
      })),
      distinct_reasons: Number(distinct?.n ?? 0),
    }
  }
}
