import { createHash } from 'node:crypto'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import { deadLetterRowOf, type DeadLetter, type DeadLetterRow, type PayloadFormat } from '../../shared/dead-letters/dead-letters.js'
import { isWellFormedText } from '../../shared/records/records.js'
import type { Tables } from '../../shared/storage/tables.js'

/**
 * Writing the records that failed validation, kept as received with the reason. A record's
 * id is a hash of its type and payload (and, for a line of a file, its format and line
 * number), so a bad record delivered again is stored once (ReplacingMergeTree on id,
 * latest `updated_at` wins). Reading is shared/dead-letters/dead-letters.ts.
 */

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

/** Where a record of a file came from: its raw text as read, and its line. */
export interface LineOrigin {
  format: Exclude<PayloadFormat, 'json'>
  /** The raw text of the NDJSON line or CSV record. */
  text: string
  line: number
  /** The CSV file's header row ('' for NDJSON). */
  csvHeader: string
}

export function deadLetterId(recordType: string, payload: string, origin?: { format: PayloadFormat; line: number | null }): string {
  const hash = createHash('sha256').update(recordType).update('\n').update(payload)
  if (origin !== undefined && origin.format !== 'json') hash.update(`\n${origin.format}:${origin.line ?? ''}`)
  return hash.digest('hex').slice(0, 32)
}

/** A dead letter of a record a producer sent (payload: the record as JSON). */
export function deadLetterRow(recordType: string, record: unknown, reason: string, source: string, now: number): DeadLetterRow {
  return letter(recordType, payloadJson(record), 'json', null, '', reason, source, now)
}

/** A dead letter of a line of a file (payload: the line's raw text as received). */
export function lineDeadLetterRow(recordType: string, origin: LineOrigin, reason: string, source: string, now: number): DeadLetterRow {
  return letter(recordType, storableText(origin.text), origin.format, origin.line, storableText(origin.csvHeader), reason, source, now)
}

function letter(
  recordType: string,
  payload: string,
  format: PayloadFormat,
  line: number | null,
  csvHeader: string,
  reason: string,
  source: string,
  now: number,
): DeadLetterRow {
  // The type, reason and source may quote what the producer sent: made storable too, so a
  // dead letter can always be written.
  const type = storableText(recordType)
  return {
    id: deadLetterId(type, payload, { format, line }),
    record_type: type,
    payload,
    payload_format: format,
    line,
    csv_header: csvHeader,
    reason: storableText(reason),
    source: storableText(source),
    failed_at: now,
    redriven_at: null,
    updated_at: now,
  }
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

  /**
   * Records that these dead letters were re-driven at `at` (a newer version of each row).
   * Done before re-enqueueing, so a record that fails again is stored after this mark
   * and shows as pending again. `redriven = false` takes the mark back.
   */
  async markRedriven(letters: readonly DeadLetter[], at: number, redriven = true): Promise<void> {
    await this.insert(letters.map((l) => deadLetterRowOf(l, redriven ? at : null, at)))
  }
}
