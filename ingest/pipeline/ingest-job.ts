import type { IngestJobResult, SourceLines } from '../../shared/platform/queues.js'
import { isRecordType } from '../../shared/records/records.js'
import { type RecordType } from '../../shared/platform/queues.js'
import { swapEntryTables } from '../../shared/storage/schema/swaps-schema.js'
import type { Tables } from '../../shared/storage/tables.js'
import type { BatchWriter, TableRows } from './batch-writer.js'
import type { DeadLetterRow } from '../../shared/dead-letters/dead-letters.js'
import { deadLetterRow, lineDeadLetterRow } from './dead-letter-store.js'
import { checkSourceLines, decodeLines, lineOrigin } from './source-lines.js'
import { swapLines } from './swap-lines.js'
import { swapRetractionRows } from './swap-retractions.js'
import { holdingRow, priceRow, tokenRow } from './table-rows.js'
import type { TokenIdRegistry } from './token-ids.js'
import { validateRecords, type Rejected } from './validate-records.js'

export interface IngestJobContext {
  writer: BatchWriter
  tables: Tables
  tokenIds: TokenIdRegistry
  /** Told which tokens' metadata was written, once stored and before the job is acknowledged. */
  onTokensStored?: (addresses: readonly string[]) => Promise<void>
}

/**
 * One ingest job: validate every record, write the valid ones to their table and the
 * invalid ones to the dead-letter store, and resolve once both are inserted. `data` is
 * read before the first await only (ingest-worker.ts lets go of the records after that).
 * The inserts write the change feed themselves (storage/schema/changes-schema.ts): readers
 * learn what changed from it; only tokens' addresses are told (onTokensStored), for the
 * API's in-memory token directories.
 */
export async function processIngestJob(data: unknown, ctx: IngestJobContext): Promise<IngestJobResult> {
  const now = Date.now()
  const envelope = readEnvelope(data)
  if ('problem' in envelope) {
    const letter = deadLetterRow(envelope.type, envelope.records, `job: ${envelope.problem}`, envelope.source, now)
    await ctx.writer.write([{ table: ctx.tables.deadLetters, rows: [letter] }])
    return { accepted: 0, rejected: 1 }
  }
  const { type, records, source } = envelope
  let letters: DeadLetterRow[]
  let result: Awaited<ReturnType<typeof rowsFor>>
  if (envelope.lines === undefined) {
    result = await rowsFor(type, records, ctx, now)
    letters = result.rejected.map((r) => deadLetterRow(type, r.record, r.reason, source, now))
  } else {
    // Lines of a file: parsed here; a refused one is dead-lettered as read, with its line.
    const texts = records as readonly string[]
    const lines = envelope.lines
    const decoded = decodeLines(texts, lines)
    result = await rowsFor(type, decoded.records, ctx, now)
    const refused = [
      ...decoded.unreadable,
      ...result.rejected.map((r) => ({ index: decoded.indexes[r.index]!, reason: r.reason })),
    ].sort((a, b) => a.index - b.index)
    letters = refused.map((r) => lineDeadLetterRow(type, lineOrigin(lines, texts, r.index), r.reason, source, now))
  }
  const { rows, accepted, tokenAddresses } = result
  const batches: TableRows[] = [rows]
  if (letters.length > 0) batches.push({ table: ctx.tables.deadLetters, rows: letters })
  await ctx.writer.write(batches)
  if (tokenAddresses !== undefined && tokenAddresses.length > 0) await ctx.onTokensStored?.(tokenAddresses)
  return { accepted, rejected: letters.length }
}

async function rowsFor(
  type: RecordType,
  records: readonly unknown[],
  ctx: IngestJobContext,
  now: number,
): Promise<{ rows: TableRows; accepted: number; rejected: Rejected[]; tokenAddresses?: string[] }> {
  const objectRows = (table: string, valid: readonly object[], rejected: Rejected[]) => ({
    rows: { table, rows: valid },
    accepted: valid.length,
    rejected,
  })
  const { tables } = ctx
  switch (type) {
    case 'swap': {
      const { encoded, rejected } = swapLines(records, now)
      return { rows: { table: swapEntryTables(tables), encoded }, accepted: encoded.count, rejected }
    }
    case 'holding': {
      const { valid, rejected } = validateRecords('holding', records)
      return objectRows(tables.holdings, valid.map(holdingRow), rejected)
    }
    case 'price': {
      const { valid, rejected } = validateRecords('price', records)
      return objectRows(tables.prices, valid.map((r) => priceRow(r, now)), rejected)
    }
    case 'swap_retraction':
      return swapRetractionRows(records, tables, now)
    case 'token': {
      const validated = validateRecords('token', records)
      // A token whose id another token holds is refused (dead-lettered) like an invalid one.
      const { ids, refused } = await ctx.tokenIds.assign(validated.valid)
      const valid = validated.valid.filter((r) => !refused.has(r))
      const indexOf = new Map(validated.valid.map((r, i) => [r, validated.validIndexes[i]!]))
      const rejected = [
        ...validated.rejected,
        ...[...refused].map(([record, reason]) => ({ record: records[indexOf.get(record)!], reason, index: indexOf.get(record)! })),
      ]
      return {
        ...objectRows(tables.tokens, valid.map((r) => tokenRow(r, ids.get(r.contract_address)!, now)), rejected),
        tokenAddresses: valid.map((r) => r.contract_address),
      }
    }
  }
}

type Envelope =
  | { type: RecordType; records: readonly unknown[]; source: string; lines?: SourceLines }
  | { type: string; records: unknown; source: string; problem: string }

function readEnvelope(data: unknown): Envelope {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>
  const type = typeof d.type === 'string' ? d.type : String(d.type)
  const source = typeof d.source === 'string' ? d.source : 'unknown'
  if (!isRecordType(type)) return { type, records: d.records, source, problem: `unknown record type "${type}"` }
  if (!Array.isArray(d.records)) return { type, records: d.records, source, problem: 'records must be an array' }
  if (d.lines === undefined) return { type, records: d.records, source }
  const lines = checkSourceLines(d.lines, d.records)
  if ('problem' in lines) return { type, records: d.records, source, problem: lines.problem }
  return { type, records: d.records, source, lines }
}
