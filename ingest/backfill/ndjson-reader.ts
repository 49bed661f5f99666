import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import type { SourceRecord } from './source-record.js'

/**
 * Reads newline-delimited JSON line by line (never the whole file). Blank lines are
 * skipped; a line that is not JSON is passed on as its raw text, so the worker
 * dead-letters it with a reason instead of it vanishing.
 */
export async function* readNdjson(content: Readable): AsyncGenerator<SourceRecord> {
  const lines = createInterface({ input: content, crlfDelay: Infinity })
  let line = 0
  for await (const text of lines) {
    line++
    const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim()
    if (trimmed === '') continue
    yield { record: parseJsonLine(trimmed), line }
  }
}

function parseJsonLine(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
