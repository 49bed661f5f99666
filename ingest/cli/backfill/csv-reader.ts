import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { csvCells, opensQuote, QUOTE_NOT_CLOSED } from './csv-fields.js'
import type { SourceLine } from './source-line.js'

/** How far a quoted cell may run on: this many lines, this many characters. */
const MAX_ROW_LINES = 100
const MAX_ROW_CHARS = 1 << 20

interface Line {
  text: string
  /** 1-based line number in the file. */
  number: number
}

export interface CsvFile {
  /** The header row as read (its line number is `headerLine`). */
  header: string
  headerLine: number
  /** The records after it, each as its raw text with its first line's number. */
  rows: AsyncGenerator<SourceLine>
}

/**
 * Reads CSV with a header row, streaming. Rows are split here, so a problem stays in its
 * row; each row goes on as its raw text (the worker splits its cells, ingest/pipeline/source-lines.ts,
 * so a row that cannot be read or is not a valid record is dead-lettered with its text as
 * read and its line). A quoted cell may run over several lines: the row's text then holds
 * them joined by "\n", and its line is the first. A quote that does not close within
 * MAX_ROW_LINES lines (or MAX_ROW_CHARS characters, or before the end of the file), or whose
 * span is not a row, makes its own line a row of its own, and the lines after it are read
 * again as rows. Undefined for a file without a row.
 */
export async function openCsv(content: Readable): Promise<CsvFile | undefined> {
  const lines = new LineSource(content)
  const header = await nextRow(lines)
  if (header === undefined) return undefined
  const cells = csvCells(header.text)
  if ('problem' in cells) throw new Error(`the header row (line ${header.line}) cannot be read: ${cells.problem}`)
  return { header: header.text, headerLine: header.line, rows: rowsOf(lines) }
}

async function* rowsOf(lines: LineSource): AsyncGenerator<SourceLine> {
  for (;;) {
    const row = await nextRow(lines)
    if (row === undefined) return
    yield row
  }
}

/** The next non-empty row, joined across lines while a quoted cell runs on. */
async function nextRow(lines: LineSource): Promise<SourceLine | undefined> {
  let first: Line | undefined
  do first = await lines.next()
  while (first !== undefined && first.text === '')
  if (first === undefined) return undefined
  if (!opensQuote(first.text)) return { text: first.text, line: first.number }
  // A quote in the wrong place (not opening a cell) is this line's problem alone: no read-ahead.
  const alone = csvCells(first.text)
  if ('problem' in alone && alone.problem !== QUOTE_NOT_CLOSED) return { text: first.text, line: first.number }

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
  if (!open && !('problem' in csvCells(text))) return { text, line: first.number }
  // The quote does not close (or what it spans is not a row): only its own line is lost.
  lines.pushBack(taken.slice(1))
  return { text: first.text, line: first.number }
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
