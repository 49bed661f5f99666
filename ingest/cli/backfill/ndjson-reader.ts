import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import type { SourceLine } from './source-line.js'

/**
 * Reads newline-delimited JSON line by line (never the whole file), skipping blank lines.
 * Each line goes on as its raw text with its line number: the worker parses it
 * (ingest/pipeline/source-lines.ts), so a line that is not JSON, nested too deep or not a valid
 * record is dead-lettered with its text exactly as read and its line.
 */
export async function* readNdjson(content: Readable): AsyncGenerator<SourceLine> {
  const lines = createInterface({ input: content, crlfDelay: Infinity })
  let line = 0
  for await (const text of lines) {
    line++
    const raw = line === 1 ? text.replace(/^\uFEFF/, '') : text
    if (raw.trim() === '') continue
    yield { text: raw, line }
  }
}
