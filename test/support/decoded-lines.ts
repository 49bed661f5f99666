import type { Readable } from 'node:stream'
import { openCsv } from '../../ingest/cli/backfill/csv-reader.js'
import { readNdjson } from '../../ingest/cli/backfill/ndjson-reader.js'
import type { SourceLine } from '../../ingest/cli/backfill/source-line.js'
import { decodeLines } from '../../ingest/pipeline/source-lines.js'

/**
 * A backfill file read as the backfill reads it (raw lines) and parsed as the worker parses
 * them: each line's record, or the reason it cannot be read, with its line number.
 */
export type DecodedLine = { record: unknown; line: number } | { reason: string; line: number }

export async function readDecoded(format: 'ndjson' | 'csv', content: Readable): Promise<DecodedLine[]> {
  let header: string | undefined
  let rows: AsyncGenerator<SourceLine> | undefined
  if (format === 'csv') {
    const csv = await openCsv(content)
    header = csv?.header
    rows = csv?.rows
  } else rows = readNdjson(content)
  const lines: SourceLine[] = []
  if (rows) for await (const l of rows) lines.push(l)
  const texts = lines.map((l) => l.text)
  const numbers = lines.map((l) => l.line)
  const decoded = decodeLines(texts, header === undefined ? { format: 'ndjson', numbers } : { format: 'csv', numbers, csvHeader: header })
  const out: DecodedLine[] = []
  decoded.records.forEach((record, i) => out.push({ record, line: numbers[decoded.indexes[i]!]! }))
  for (const u of decoded.unreadable) out.push({ reason: u.reason, line: numbers[u.index]! })
  return out.sort((a, b) => a.line - b.line)
}
