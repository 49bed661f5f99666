import { parse, type CsvError, type Parser } from 'csv-parse'
import type { Readable } from 'node:stream'
import { unflatten } from './flattened-fields.js'
import type { SourceRecord } from './source-record.js'

type ParsedRow = { record: Record<string, string>; info: { lines: number } } | { unreadable: SourceRecord }

/**
 * Reads CSV with a header row, streaming. Dotted headers become nested fields; empty
 * cells are absent. A row the parser cannot read (wrong number of cells, a broken
 * quote) is passed on, in file order, as text naming the problem, so the worker
 * dead-letters it instead of it vanishing.
 */
export async function* readCsv(content: Readable): AsyncGenerator<SourceRecord> {
  // The skipped row is pushed into the parser's own output so it keeps its place in the file.
  const parser: Parser = parse({
    columns: (header: string[]) => header.map((h) => h.trim()),
    bom: true,
    info: true,
    raw: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined, raw: string | undefined) => {
      const line = typeof error?.lines === 'number' ? error.lines : 0
      const text = `unreadable CSV row (${error?.message ?? 'parse error'}): ${(raw ?? '').trimEnd()}`
      parser.push({ unreadable: { record: text, line } } satisfies ParsedRow)
      return undefined
    },
  })
  content.on('error', (error) => parser.destroy(error))
  content.pipe(parser)
  for await (const row of parser as AsyncIterable<ParsedRow>) {
    if ('unreadable' in row) yield row.unreadable
    else yield { record: unflatten(row.record), line: row.info.lines }
  }
}
