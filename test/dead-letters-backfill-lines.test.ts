import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redriveDeadLetters } from '../ingest/pipeline/dead-letter-redrive.js'
import { DeadLetterStore } from '../ingest/pipeline/dead-letter-store.js'
import { startIngestRole } from '../ingest/role.js'
import { DeadLetterReader, type DeadLetter } from '../shared/dead-letters/dead-letters.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import type { RunningRole } from '../shared/runtime.js'
import { makeSwap, runBackfill, SWAP_CSV_HEADER, swapCsvRow } from './support/backfill-files.js'
import { waitForJob } from './support/ingest-harness.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A bad line in the middle of a backfill file is dead-lettered with its exact line number
 * and its raw text as it was in the file (spacing, key order, number spelling and quoting
 * kept: not the parsed record, not a batch's line range), and re-drives as that text.
 */
describe('backfill dead letters: the exact line, as received', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dead-letter-lines-'))
  let rt: TestRuntime
  let ingest: RunningRole
  let reader: DeadLetterReader

  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
    ingest = await startIngestRole(rt)
    reader = new DeadLetterReader(rt.clickhouse, rt.tables)
  })
  afterAll(async () => {
    await ingest?.stop()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  async function lettersOf(file: string): Promise<DeadLetter[]> {
    return (await reader.page({ source: file }, 500, 0)).letters.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
  }

  it('NDJSON: line 1,234 of 2,500 (batches of 1,000), its text byte for byte', async () => {
    const lines = Array.from({ length: 2_500 }, (_, i) => JSON.stringify(makeSwap('nd-lines', i)))
    // A record whose text is not what JSON.stringify of it would give: spaces, a key order,
    // an exponent, an escaped character; its amount is a JSON number, which is refused.
    const bad = '  { "block_number" : 1e3, "hash":"0x' + 'ab'.repeat(32) + '", "dex":"uni\\u0073wap", "token_sold": {"amount_raw": 12} }\t'
    lines[1_233] = bad
    const file = join(dir, 'lines.ndjson')
    writeFileSync(file, lines.join('\n') + '\n')
    const result = await runBackfill(['--type', 'swap', '--batch-size', '1000', '--wait', file], rt.env)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('accepted: 2,499')
    expect(result.stdout).toContain('rejected: 1')
    const [letter, ...others] = await lettersOf(file)
    expect(others).toEqual([])
    expect(letter).toMatchObject({ line: 1_234, payload: bad, payload_format: 'ndjson', csv_header: null, source: file })
    expect(letter!.reason).toMatch(/amount_raw/)
  })

  it('CSV: the record line (a record spanning lines is named by its first), its text as read, with the header it was read under', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => swapCsvRow(makeSwap('csv-lines', i)))
    // Row 151 (lines 153-154): a quoted dex spanning two lines (a valid record); row 152 (line 155): a bad wallet.
    const twoLines = swapCsvRow(makeSwap('csv-lines', 151)).replace(/,uniswap_v3$/, ',"uniswap\nv3"')
    expect(twoLines).toContain('\n')
    rows[151] = twoLines
    const badRow = swapCsvRow({ ...makeSwap('csv-lines', 152), wallet_address: '0x1234' }) + ' '
    rows[152] = badRow
    const file = join(dir, 'lines.csv')
    writeFileSync(file, [SWAP_CSV_HEADER, ...rows].join('\r\n') + '\r\n')
    const result = await runBackfill(['--type', 'swap', '--batch-size', '100', '--wait', file], rt.env)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('accepted: 299')
    expect(result.stdout).toContain('rejected: 1')
    const [letter, ...others] = await lettersOf(file)
    expect(others).toEqual([])
    // Header on line 1, rows from line 2; the two-line record takes lines 153-154, so the bad one is on 155.
    expect(letter).toMatchObject({ line: 155, payload: badRow, payload_format: 'csv', csv_header: SWAP_CSV_HEADER, source: file })
    expect(letter!.reason).toMatch(/wallet_address/)
  })

  it('a file dead letter re-drives as its text: still invalid, it comes back under the same id, line and text, pending', async () => {
    const producer = new IngestProducer(rt.config)
    try {
      const before = [...(await lettersOf(join(dir, 'lines.ndjson'))), ...(await lettersOf(join(dir, 'lines.csv')))]
      const jobIds: string[] = []
      const sink = {
        send: async (...args: Parameters<IngestProducer['send']>) => {
          jobIds.push(await producer.send(...args))
          return jobIds.at(-1)!
        },
        sendLines: async (...args: Parameters<IngestProducer['sendLines']>) => {
          jobIds.push(await producer.sendLines(...args))
          return jobIds.at(-1)!
        },
      }
      const result = await redriveDeadLetters(reader, new DeadLetterStore(rt.clickhouse, rt.tables), sink, { ids: before.map((l) => l.id) })
      expect(result).toMatchObject({ redriven: 2, jobs: 2 })
      for (const id of jobIds) expect(await waitForJob(producer, id)).toEqual({ accepted: 0, rejected: 1 })
      const after = (await reader.page({ ids: before.map((l) => l.id) }, 10, 0)).letters
      for (const old of before) {
        const now = after.find((l) => l.id === old.id)
        expect(now).toMatchObject({
          line: old.line,
          payload: old.payload,
          payload_format: old.payload_format,
          csv_header: old.csv_header,
          reason: old.reason,
          source: `redrive:${old.source}`,
          redriven_at: null,
        })
      }
    } finally {
      await producer.close()
    }
  })
})
