import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIngestRole } from '../ingest/role.js'
import type { RunningRole } from '../shared/runtime.js'
import { makeSwap, readSwaps, runBackfill, storedSwap, SWAP_CSV_HEADER, swapCsvRow, type SwapInput } from './support/backfill-files.js'
import { readDecoded } from './support/decoded-lines.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * One hostile line of a backfill file (JSON nested thousands of levels deep, a CSV quote
 * never closed) is dead-lettered on its own; the lines after it are read and stored.
 */

const DEEP_ARRAY = '['.repeat(4_200) + ']'.repeat(4_200)
const DEEP_OBJECT = '{"a":'.repeat(4_200) + '1' + '}'.repeat(4_200)

const TOO_DEEP = 'line: nested deeper than 32 levels'
const QUOTE = 'row: Quote Not Closed: the quote opened in this row is not closed'

describe('NDJSON lines: nesting depth', () => {
  it('refuses a line nested too deep with its reason, and reads the lines after it', async () => {
    const text = ['{"a":1}', DEEP_ARRAY, '{"b":[[["ok"]]]}', DEEP_OBJECT, `{"name":"${'['.repeat(5_000)}"}`, '{"c":3}'].join('\n')
    const records = await readDecoded('ndjson', Readable.from([text]))
    expect(records).toEqual([
      { record: { a: 1 }, line: 1 },
      { reason: TOO_DEEP, line: 2 },
      { record: { b: [[['ok']]] }, line: 3 },
      { reason: TOO_DEEP, line: 4 },
      // Brackets inside a string are text, not nesting.
      { record: { name: '['.repeat(5_000) }, line: 5 },
      { record: { c: 3 }, line: 6 },
    ])
  })

  it('accepts exactly 32 levels and refuses 33', async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
    const records = await readDecoded('ndjson', Readable.from([`${nested(32)}\n${nested(33)}\n`]))
    expect(records).toEqual([{ record: JSON.parse(nested(32)), line: 1 }, { reason: TOO_DEEP, line: 2 }])
  })
})

describe('CSV rows: an error stays in its row', () => {
  it('a quote never closed makes its own row unreadable; the following rows are read', async () => {
    const text = ['a,b,c', '1,2,3', '4,"5,6', '7,8,9', '10,11,12'].join('\n') + '\n'
    const records = await readDecoded('csv', Readable.from([text]))
    expect(records).toEqual([
      { record: { a: '1', b: '2', c: '3' }, line: 2 },
      { reason: QUOTE, line: 3 },
      { record: { a: '7', b: '8', c: '9' }, line: 4 },
      { record: { a: '10', b: '11', c: '12' }, line: 5 },
    ])
  })

  it('keeps quoted fields spanning lines (named by their first line), and confines other quote errors and a last unclosed quote to their row', async () => {
    const text = [
      'a,b,c',
      '1,"two\nlines, with ""quotes""",3',
      '4,5"x,6',
      '7,"8"y,9',
      '10,11,12',
      '13,14,"15',
    ].join('\r\n')
    const records = await readDecoded('csv', Readable.from([text]))
    expect(records.map((r) => r.line)).toEqual([2, 4, 5, 6, 7])
    expect(records[0]).toEqual({ record: { a: '1', b: 'two\nlines, with "quotes"', c: '3' }, line: 2 })
    expect(records[1]).toEqual({ reason: expect.stringMatching(/^row: Invalid Opening Quote: /), line: 4 })
    expect(records[2]).toEqual({ reason: expect.stringMatching(/^row: Invalid Closing Quote: /), line: 5 })
    expect(records[3]).toEqual({ record: { a: '10', b: '11', c: '12' }, line: 6 })
    expect(records[4]).toEqual({ reason: QUOTE, line: 7 })
  })
})

describe('npm run backfill with hostile lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'backfill-hostile-'))
  let rt: TestRuntime
  let ingest: RunningRole

  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '100' })
    ingest = await startIngestRole(rt)
  })
  afterAll(async () => {
    await ingest?.stop()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  async function expectStored(items: SwapInput[]): Promise<void> {
    const stored = await readSwaps(rt.clickhouse, rt.tables, items.map((s) => s.hash))
    expect(stored).toEqual(items.map(storedSwap).sort((a, b) => a.hash.localeCompare(b.hash)))
  }

  async function reasonsFrom(file: string): Promise<Array<{ payload: string; reason: string; line: number }>> {
    const rs = await rt.clickhouse.query({
      query: `SELECT payload, reason, toUInt32(assumeNotNull(line)) AS line FROM ${rt.tables.deadLetters} FINAL WHERE source = {src:String}`,
      query_params: { src: file },
      format: 'JSONEachRow',
    })
    return rs.json()
  }

  it('NDJSON: a line nested 4,200 levels deep is dead-lettered, the rest of the file is stored', async () => {
    const items = Array.from({ length: 300 }, (_, i) => makeSwap('deep', i))
    const lines = items.map((s) => JSON.stringify(s))
    lines.splice(150, 0, DEEP_ARRAY)
    const file = join(dir, 'deep.ndjson')
    writeFileSync(file, lines.join('\n') + '\n')
    const result = await runBackfill(['--type', 'swap', '--batch-size', '100', '--wait', file], rt.env)
    expect(result.stderr).not.toMatch(/Maximum call stack/)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('records read: 301 in ')
    expect(result.stdout).toContain('accepted: 300')
    expect(result.stdout).toContain('rejected: 1')
    await expectStored(items)
    const [letter, ...others] = await reasonsFrom(file)
    expect(others).toEqual([])
    expect(letter).toEqual({ payload: DEEP_ARRAY, reason: TOO_DEEP, line: 151 })
  })

  it('CSV: a quote never closed costs its own row only, every following row is stored', async () => {
    const items = Array.from({ length: 300 }, (_, i) => makeSwap('quote', i))
    const rows = items.map(swapCsvRow)
    const broken = swapCsvRow(makeSwap('quote-broken', 1)).replace(',uniswap_v3', ',"uniswap_v3')
    rows.splice(10, 0, broken)
    const file = join(dir, 'quote.csv')
    writeFileSync(file, [SWAP_CSV_HEADER, ...rows].join('\n') + '\n')
    const result = await runBackfill(['--type', 'swap', '--batch-size', '100', '--wait', file], rt.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('records read: 301 in ')
    expect(result.stdout).toContain('accepted: 300')
    expect(result.stdout).toContain('rejected: 1')
    await expectStored(items)
    const [letter, ...others] = await reasonsFrom(file)
    expect(others).toEqual([])
    expect(letter).toEqual({ payload: broken, reason: QUOTE, line: 12 })
  })
})
