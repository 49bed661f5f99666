import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { MAX_RECORD_DEPTH, nestedDeeperThan } from './json-depth.js'
import type { SourceRecord } from './source-record.js'

/**
 * Reads newline-delimited JSON line by line (never the whole file). Blank lines are
 * skipped; a line that is not JSON is passed on as its raw text, and one nested deeper
 * than MAX_RECORD_DEPTH as text naming the problem, so the worker dead-letters it with a
 * reason instead of it vanishing or stopping the backfill; the lines after it are read.
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
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    // A RangeError is the parser running out of stack: nesting, not syntax.
    return error instanceof RangeError ? tooDeep(text) : text
  }
  return nestedDeeperThan(value, MAX_RECORD_DEPTH) ? tooDeep(text) : value
}

function tooDeep(text: string): string {
  return `unreadable NDJSON line (nested deeper than ${MAX_RECORD_DEPTH} levels): ${text}`
}
