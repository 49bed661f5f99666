import { createHash } from 'node:crypto'
import type { ClickHouseClient } from '../shared/clickhouse.js'
import { isWellFormedText } from '../shared/records.js'
import type { Tables } from '../shared/tables.js'

/**
 * Records that failed validation, kept as received with the reason. A record's id is a
 * hash of its type and payload, so a bad record delivered again is stored once
 * (ReplacingMergeTree on id, latest `updated_at` wins).
 */

export interface DeadLetterRow {
  id: string
  record_type: string
  payload: string
  reason: string
  source: string
  failed_at: number
  redriven_at: number | null
  updated_at: number
}

export interface DeadLetter {
  id: string
  recordType: string
  /** The record as received, JSON. */
  payload: string
  reason: string
  source: string
  failedAt: string
  redrivenAt: string | null
}

/**
 * The record as received, as JSON. JSON.stringify writes a lone UTF-16 surrogate (in a value
 * or a key) as its escape `\udXXX`, so the payload is always text ClickHouse can store.
 */
export function payloadJson(record: unknown): string {
  return JSON.stringify(record) ?? 'null'
}

/** Text ClickHouse can store: a lone UTF-16 surrogate (which would fail the insert) becomes U+FFFD. */
export function storableText(text: string): string {
  return isWellFormedText(text) ? text : text.replace(LONE_SURROGATES, '\uFFFD')
}

const LONE_SURROGATES = /\p{Surrogate}/gu

export function deadLetterId(recordType: string, payload: string): string {
  return createHash('sha256').update(recordType).update('\n').update(payload).digest('hex').slice(0, 32)
}

export function deadLetterRow(recordType: string, record: unknown, reason: string, source: string, now: number): DeadLetterRow {
  const payload = payloadJson(record)
  // The type, reason and source may quote what the producer sent: made storable too, so a
  // dead letter can always be written.
  const type = storableText(recordType)
  return {
    id: deadLetterId(type, payload),
    record_type: type,
    payload,
    reason: storableText(reason),
    source: storableText(source),
    failed_at: now,
    redriven_at: null,
    updated_at: now,
  }
}

export interface DeadLetterFilter {
  type?: string
  id?: string
  /** Leave out the ones already re-driven (and not dead-lettered again since). */
  pendingOnly?: boolean
  limit?: number
}

interface StoredRow {
  id: string
  record_type: string
  payload: string
  reason: string
  source: string
  failed_at_ms: string
  redriven_at_ms: string | null
}

export class DeadLetterStore {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  async insert(rows: DeadLetterRow[]): Promise<void> {
    if (rows.length === 0) return
    await this.clickhouse.insert({ table: this.tables.deadLetters, values: rows, format: 'JSONEachRow' })
  }

  /** Newest first. */
  async list(filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
    const rs = await this.clickhouse.query({
      query: `SELECT id, record_type, payload, reason, source,
          toUnixTimestamp64Milli(failed_at) AS failed_at_ms,
          if(isNull(redriven_at), NULL, toUnixTimestamp64Milli(assumeNotNull(redriven_at))) AS redriven_at_ms
        FROM ${this.tables.deadLetters} FINAL
        WHERE ({type:String} = '' OR record_type = {type:String})
          AND ({id:String} = '' OR id = {id:String})
          AND (NOT {pendingOnly:Bool} OR isNull(redriven_at))
        ORDER BY failed_at DESC, id
        LIMIT {limit:UInt64}`,
      query_params: {
        type: filter.type ?? '',
        id: filter.id ?? '',
        pendingOnly: filter.pendingOnly ?? false,
        limit: filter.limit ?? 1_000_000,
      },
      format: 'JSONEachRow',
    })
    const rows = await rs.json<StoredRow>()
    return rows.map((r) => ({
      id: r.id,
      recordType: r.record_type,
      payload: r.payload,
      reason: r.reason,
      source: r.source,
      failedAt: new Date(Number(r.failed_at_ms)).toISOString(),
      redrivenAt: r.redriven_at_ms === null ? null : new Date(Number(r.redriven_at_ms)).toISOString(),
    }))
  }

  async count(filter: Pick<DeadLetterFilter, 'type'> = {}): Promise<number> {
    const rs = await this.clickhouse.query({
      query: `SELECT count() AS n FROM ${this.tables.deadLetters} FINAL WHERE ({type:String} = '' OR record_type = {type:String})`,
      query_params: { type: filter.type ?? '' },
      format: 'JSONEachRow',
    })
    const [row] = await rs.json<{ n: string }>()
    return Number(row?.n ?? 0)
  }

  /**
   * Records that these dead letters were re-driven at `at` (a newer version of each row).
   * Done before re-enqueueing, so a record that fails again is stored after this mark
   * and shows as pending again.
   */
  async markRedriven(letters: readonly DeadLetter[], at: number, redriven = true): Promise<void> {
    const rows: DeadLetterRow[] = letters.map((l) => ({
      id: l.id,
      record_type: l.recordType,
      payload: l.payload,
      reason: l.reason,
      source: l.source,
      failed_at: Date.parse(l.failedAt),
      redriven_at: redriven ? at : null,
      updated_at: at,
    }))
    await this.insert(rows)
  }
}
