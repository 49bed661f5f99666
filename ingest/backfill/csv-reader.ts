import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { csvCells, opensQuote, QUOTE_NOT_CLOSED } from './csv-fields.js'
import { unflatten } from './flattened-fields.js'
import type { SourceRecord } from './source-record.js'

/** How far a quoted cell may run on: this many lines, this many characters. */
const MAX_ROW_LINES = 100
const MAX_ROW_CHARS = 1 << 20

interface Line {
  text: string
  /** 1-based line number in the file. */
  number: number
}

/**
 * Reads CSV with a header row, streaming. Dotted headers become nested fields; empty
 * cells are absent. Rows are split by the reader itself, so a problem stays in its row:
 * a row that cannot be read (wrong number of cells, a broken quote) is passed on, in
 * file order, as text naming the problem, so the worker dead-letters it, and the next
 * row is read as usual. A quote that does not close within MAX_ROW_LINES lines (or
 * MAX_ROW_CHARS characters, or before the end of the file) makes its own line unreadable,
 * and the lines after it are read again as rows. Line breaks inside a quoted cell are
 * read as "\n".
 */
export async function* readCsv(content: Readable): AsyncGenerator<SourceRecord> {
  const lines = new LineSource(content)
  let columns: string[] | undefined
  for (;;) {
    const row = await nextRow(lines)
    if (row === undefined) return
    const cells = 'problem' in row ? row : csvCells(row.text)
    if (columns === undefined) {
      if ('problem' in cells) throw new Error(`the header row (line ${row.line}) cannot be read: ${cells.problem}`)
      columns = cells.map((h) => h.trim())
      continue
    }
    if ('problem' in cells) {
      yield unreadable(row.text, cells.problem, row.line)
    } else if (cells.length !== columns.length) {
      const problem = `Invalid Record Length: expected ${columns.length} cells (the header's), got ${cells.length}`
      yield unreadable(row.text, problem, row.line)
    } else {
      const record: Record<string, string> = {}
      for (let i = 0; i < cells.length; i++) record[columns[i]!] = cells[i]!
      yield { record: unflatten(record), line: row.line }
    }
  }
}

type Row = { text: string; line: number } | { text: string; line: number; problem: string }

/** The next non-empty row, joined across lines while a quoted cell runs on. */
async function nextRow(lines: LineSource): Promise<Row | undefined> {
  let first: Line | undefined
  do first = await lines.next()
  while (first !== undefined && first.text === '')
  if (first === undefined) return undefined
  if (!opensQuote(first.text)) return { text: first.text, line: first.number }
  // A quote in the wrong place (not opening a cell) is this line's problem alone: no read-ahead.
  const alone = csvCells(first.text)
  if ('problem' in alone && alone.problem !== QUOTE_NOT_CLOSED) return { text: first.text, line: first.number, problem: alone.problem }

  const taken: Line[] = [first]
  let text = first.text
  let open = true
  while (open && taken.length < MAX_ROW_LINES && text.length <= MAX_ROW_CHARS) {
    const more = await lines.next()
    if (more === undefined) break
    taken.push(more)
    text += `\n${more.text}`
    open = opensQuote(more.text) ? !open : open
  }
  const last = taken[taken.length - 1]!
  if (!open && csvCellsReadable(text)) return { text, line: last.number }
  // The quote does not close (or what it spans is not a row): only its own line is lost.
  lines.pushBack(taken.slice(1))
  return { text: first.text, line: first.number, problem: QUOTE_NOT_CLOSED }
}

function csvCellsReadable(text: string): boolean {
  return !('problem' in csvCells(text))
}

function unreadable(text: string, problem: string, line: number): SourceRecord {
  return { record: `unreadable CSV row (${problem}): ${text.trimEnd()}`, line }
}

/** The file's lines, with lines read ahead and given back read again first. */
class LineSource {
  private readonly iterator: AsyncIterator<string>
  private readonly returned: Line[] = []
  private count = 0

  constructor(content: Readable) {
    this.iterator = createInterface({ input: content, crlfDelay: Infinity })[Symbol.asyncIterator]()
  }

  async next(): Promise<Line | undefined> {
    const again = this.returned.shift()
    if (again) return again
    const { value, done } = await this.iterator.next()
    if (done) return undefined
    this.count++
    return { text: this.count === 1 ? value.replace(/^\uFEFF/, '') : value, number: this.count }
  }

  pushBack(lines: Line[]): void {
    this.returned.unshift(...lines)
  }
}
