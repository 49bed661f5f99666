import type { SourceLines } from '../../shared/platform/queues.js'
import { csvCells } from '../cli/backfill/csv-fields.js'
import { unflatten } from '../cli/backfill/flattened-fields.js'
import { MAX_RECORD_DEPTH, nestedDeeperThan } from '../cli/backfill/json-depth.js'
import type { LineOrigin } from './dead-letter-store.js'

/**
 * The records of a job of file lines (see SourceLines in shared/platform/queues.ts): each line's raw
 * text parsed here, in the worker, so that a record refused for any reason (unreadable
 * line, invalid record) is dead-lettered with the text exactly as read and its line.
 */

export interface DecodedLines {
  /** The records that could be read, in job order. */
  records: unknown[]
  /** For each of `records`, its index in the job. */
  indexes: number[]
  /** Lines that could not be read as a record, by index in the job. */
  unreadable: Array<{ index: number; reason: string }>
}

/** Whether a job's `lines` fit its records; the problem otherwise. */
export function checkSourceLines(lines: unknown, records: readonly unknown[]): SourceLines | { problem: string } {
  const l = (typeof lines === 'object' && lines !== null ? lines : {}) as Record<string, unknown>
  if (l.format !== 'ndjson' && l.format !== 'csv') return { problem: 'lines.format must be "ndjson" or "csv"' }
  if (!Array.isArray(l.numbers) || l.numbers.length !== records.length || !l.numbers.every((n) => Number.isSafeInteger(n) && n >= 1)) {
    return { problem: 'lines.numbers must hold a line number (an integer from 1) per record' }
  }
  if (!records.every((r) => typeof r === 'string')) return { problem: 'the records of a job of lines must be their text' }
  if (l.format === 'csv') {
    if (typeof l.csvHeader !== 'string') return { problem: 'lines.csvHeader must be the CSV header row' }
    return { format: 'csv', numbers: l.numbers as number[], csvHeader: l.csvHeader }
  }
  return { format: 'ndjson', numbers: l.numbers as number[] }
}

export function decodeLines(texts: readonly string[], lines: SourceLines): DecodedLines {
  const out: DecodedLines = { records: [], indexes: [], unreadable: [] }
  const columns = lines.format === 'csv' ? csvColumns(lines.csvHeader ?? '') : undefined
  for (let index = 0; index < texts.length; index++) {
    const decoded = columns === undefined ? ndjsonRecord(texts[index]!) : csvRecord(texts[index]!, columns)
    if ('reason' in decoded) {
      out.unreadable.push({ index, reason: decoded.reason })
    } else {
      out.records.push(decoded.record)
      out.indexes.push(index)
    }
  }
  return out
}

export function lineOrigin(lines: SourceLines, texts: readonly string[], index: number): LineOrigin {
  return { format: lines.format, text: texts[index]!, line: lines.numbers[index]!, csvHeader: lines.csvHeader ?? '' }
}

type Decoded = { record: unknown } | { reason: string }

function ndjsonRecord(text: string): Decoded {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    // A RangeError is the parser running out of stack: nesting, not syntax.
    if (error instanceof RangeError) return tooDeep()
    return { reason: `line: not valid JSON (${error instanceof Error ? error.message : String(error)})` }
  }
  // Much deeper input overflows the stack of recursive code further on (BullMQ's JSON
  // handling, the dead-letter writer), so it is refused here.
  return nestedDeeperThan(value, MAX_RECORD_DEPTH) ? tooDeep() : { record: value }
}

function tooDeep(): Decoded {
  return { reason: `line: nested deeper than ${MAX_RECORD_DEPTH} levels` }
}

type Columns = string[] | { problem: string }

function csvColumns(header: string): Columns {
  const cells = csvCells(header.replace(/^\uFEFF/, ''))
  return 'problem' in cells ? cells : cells.map((h) => h.trim())
}

function csvRecord(text: string, columns: Columns): Decoded {
  if ('problem' in columns) return { reason: `row: the header row cannot be read (${columns.problem})` }
  const cells = csvCells(text)
  if ('problem' in cells) return { reason: `row: ${cells.problem}` }
  if (cells.length !== columns.length) {
    return { reason: `row: Invalid Record Length: expected ${columns.length} cells (the header's), got ${cells.length}` }
  }
  const flat: Record<string, string> = {}
  for (let i = 0; i < cells.length; i++) flat[columns[i]!] = cells[i]!
  return { record: unflatten(flat) }
}
