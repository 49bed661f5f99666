import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { parseBackfillArguments, UsageError } from '../ingest/cli/backfill/arguments.js'
import { FileProblem, inspectFile, openFile } from '../ingest/cli/backfill/open-file.js'
import { formatDuration, ProgressReporter, type ProgressState } from '../ingest/cli/backfill/progress.js'
import { readDecoded, type DecodedLine } from './support/decoded-lines.js'

const dir = mkdtempSync(join(tmpdir(), 'backfill-readers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

/** The file read as the backfill reads it and parsed as the worker parses its lines. */
async function readAll(path: string): Promise<{ records: DecodedLine[]; bytes: number; size: number }> {
  const info = await inspectFile(path)
  const opened = openFile(info)
  const records = await readDecoded(info.format, opened.content)
  return { records, bytes: opened.bytesRead(), size: info.size }
}

const BIG = '115792089237316195423570985008687907853269984665640564039457584007913129639935'

describe('NDJSON reader', () => {
  it('reads one record per line with its line number, skipping blank lines; an unparseable line is refused with its reason', async () => {
    const path = file(
      'a.ndjson',
      '\uFEFF{"a":1}\r\n\n{"amount_raw":"' + BIG + '"}\nnot json at all\n  {"b":[1,2]}  \n',
    )
    const { records, bytes, size } = await readAll(path)
    expect(records).toEqual([
      { record: { a: 1 }, line: 1 },
      { record: { amount_raw: BIG }, line: 3 },
      { reason: expect.stringMatching(/^line: not valid JSON \(/), line: 4 },
      { record: { b: [1, 2] }, line: 5 },
    ])
    expect(bytes).toBe(size)
  })

  it('detects gzip by its magic bytes, whatever the file is called, and counts compressed bytes', async () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(50) })).join('\n')
    const gz = gzipSync(lines)
    const named = file('b.ndjson.gz', gz)
    const unnamed = file('b.data', gz)
    for (const path of [named, unnamed]) {
      const info = await inspectFile(path)
      expect(info.gzip).toBe(true)
      const { records, bytes, size } = await readAll(path)
      expect(records).toHaveLength(2_000)
      expect(records[1_999]).toEqual({ record: { i: 1_999, pad: 'x'.repeat(50) }, line: 2_000 })
      expect(size).toBe(gz.length)
      expect(bytes).toBe(gz.length)
    }
    expect((await inspectFile(file('plain.ndjson.gz', '{"a":1}\n'))).gzip).toBe(false)
  })
})

describe('CSV reader', () => {
  it('unflattens dotted headers into nested records and leaves empty cells absent', async () => {
    const path = file(
      's.csv',
      'hash,token_sold.contract_address,token_sold.amount_raw,token_bought.contract_address,token_bought.amount_raw,value_usd,dex\n' +
        `0xaa,0x01,${BIG},0x02,7,12.5,uniswap\n` +
        '0xbb,0x03,1,0x04,2,,\n' +
        '"0xcc","0x05","3","0x06","4","1,000",""\n',
    )
    const { records } = await readAll(path)
    expect(records).toEqual([
      {
        line: 2,
        record: {
          hash: '0xaa',
          token_sold: { contract_address: '0x01', amount_raw: BIG },
          token_bought: { contract_address: '0x02', amount_raw: '7' },
          value_usd: '12.5',
          dex: 'uniswap',
        },
      },
      {
        line: 3,
        record: { hash: '0xbb', token_sold: { contract_address: '0x03', amount_raw: '1' }, token_bought: { contract_address: '0x04', amount_raw: '2' } },
      },
      {
        line: 4,
        record: {
          hash: '0xcc',
          token_sold: { contract_address: '0x05', amount_raw: '3' },
          token_bought: { contract_address: '0x06', amount_raw: '4' },
          value_usd: '1,000',
        },
      },
    ])
  })

  it('a row it cannot read is refused with the problem, and the next rows are read', async () => {
    const path = file('bad.csv', 'a,b\n1,2\n3\n4,5\n')
    const { records } = await readAll(path)
    expect(records).toHaveLength(3)
    expect(records[0]).toEqual({ record: { a: '1', b: '2' }, line: 2 })
    expect(records[1]).toEqual({ reason: 'row: Invalid Record Length: expected 2 cells (the header\'s), got 1', line: 3 })
    expect(records[2]).toEqual({ record: { a: '4', b: '5' }, line: 4 })
  })

  it('reads gzip-compressed CSV', async () => {
    const { records } = await readAll(file('z.csv.gz', gzipSync('a.b,c\n1,2\n')))
    expect(records).toEqual([{ record: { a: { b: '1' }, c: '2' }, line: 2 }])
  })
})

describe('file checks', () => {
  it('refuses a missing file and a directory with a clear message', async () => {
    await expect(inspectFile(join(dir, 'missing.ndjson'))).rejects.toThrow(FileProblem)
    await expect(inspectFile(join(dir, 'missing.ndjson'))).rejects.toThrow(/missing\.ndjson: no such file/)
    mkdirSync(join(dir, 'folder.csv'))
    await expect(inspectFile(join(dir, 'folder.csv'))).rejects.toThrow(/not a regular file/)
  })

  it('takes the format from the name unless told', async () => {
    const path = file('x.txt', 'a\n1\n')
    expect((await inspectFile(path)).format).toBe('ndjson')
    expect((await inspectFile(path, 'csv')).format).toBe('csv')
    expect((await inspectFile(file('y.CSV', 'a\n'))).format).toBe('csv')
  })
})

describe('command arguments', () => {
  it('parses type, batch size, wait and files', () => {
    expect(parseBackfillArguments(['--type', 'swap', '--batch-size', '100', '--wait', 'a', 'b'])).toEqual({
      type: 'swap',
      files: ['a', 'b'],
      batchSize: 100,
      wait: true,
      format: undefined,
    })
  })

  it.each([
    [['a.ndjson'], /--type is required/],
    [['--type', 'trade', 'a'], /unknown --type "trade"/],
    [['--type', 'swap'], /no files given/],
    [['--type', 'swap', '--batch-size', '0', 'a'], /--batch-size/],
    [['--type', 'swap', '--bogus', 'a'], /bogus/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseBackfillArguments(argv)).toThrow(UsageError)
    expect(() => parseBackfillArguments(argv)).toThrow(message)
  })
})

describe('progress display', () => {
  const state: ProgressState = {
    phase: 'reading',
    bytesRead: 500,
    totalBytes: 1_000,
    records: 12_345,
    jobsEnqueued: 0,
    jobsFinished: 0,
    accepted: 0,
    rejected: 0,
  }

  it('draws a bar in place on a terminal', () => {
    const writes: string[] = []
    const reporter = new ProgressReporter({ isTTY: true, columns: 100, write: (t: string) => writes.push(t) }, () => state)
    reporter.render()
    expect(writes[0]).toMatch(/^\r\x1b\[2K\[#+-+\]  50\.0%  12,345 rows  [\d,]+ rows\/s  ETA /)
  })

  it('writes plain lines elsewhere', () => {
    const writes: string[] = []
    const reporter = new ProgressReporter({ isTTY: false, write: (t: string) => writes.push(t) }, () => ({ ...state, phase: 'waiting', jobsEnqueued: 4, jobsFinished: 1, accepted: 5_000 }))
    reporter.render()
    expect(writes).toEqual(['backfill: waiting for the workers: 1/4 jobs done, 5,000 accepted, 0 rejected\n'])
  })

  it('formats durations', () => {
    expect(formatDuration(undefined)).toBe('--:--')
    expect(formatDuration(65_000)).toBe('1:05')
    expect(formatDuration(3_725_000)).toBe('1:02:05')
  })
})
