import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIngestRole } from '../ingest/role.js'
import { RECORD_TYPES } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import {
  makeSwap,
  readSwaps,
  runBackfill,
  storedSwap,
  SWAP_CSV_HEADER,
  swapCsvRow,
  type SwapInput,
} from './support/backfill-files.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const dir = mkdtempSync(join(tmpdir(), 'backfill-command-'))
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

function swaps(tag: string, n: number): SwapInput[] {
  return Array.from({ length: n }, (_, i) => makeSwap(tag, i))
}

function ndjson(items: unknown[]): string {
  return items.map((s) => JSON.stringify(s)).join('\n') + '\n'
}

async function expectStoredOnce(items: SwapInput[]): Promise<void> {
  const stored = await readSwaps(
    rt.clickhouse,
    rt.tables,
    items.map((s) => s.hash),
  )
  const expected = items.map(storedSwap).sort((a, b) => a.hash.localeCompare(b.hash))
  expect(stored).toHaveLength(items.length)
  expect(stored).toEqual(expected)
}

describe('npm run backfill', () => {
  const ndjsonSwaps = swaps('ndjson', 2_500)
  const ndjsonFile = join(dir, 'swaps.ndjson')

  it('loads an NDJSON file: every record once, uint256 amounts digit for digit', async () => {
    writeFileSync(ndjsonFile, ndjson(ndjsonSwaps))
    const result = await runBackfill(['--type', 'swap', '--batch-size', '1000', '--wait', ndjsonFile], rt.env)
    expect(result.stderr).not.toMatch(/error/i)
    expect(result.stderr).not.toContain('no ingest worker')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('records read: 2,500 in ')
    expect(result.stdout).toContain('jobs enqueued: 3')
    expect(result.stdout).toContain('accepted: 2,500')
    expect(result.stdout).toContain('rejected: 0')
    await expectStoredOnce(ndjsonSwaps)
    expect(ndjsonSwaps[7]!.token_sold.amount_raw).toBe('1606938044258990275541962092341162602522202993782792835301383')
  })

  it('loads the same file a second time without doubling anything', async () => {
    const result = await runBackfill(['--type', 'swap', '--wait', ndjsonFile], rt.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('accepted: 2,500')
    await expectStoredOnce(ndjsonSwaps)
    const rs = await rt.clickhouse.query({
      query: `SELECT count() AS n, uniqExact(hash) AS u FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)}`,
      query_params: { h: ndjsonSwaps.map((s) => s.hash.toLowerCase()) },
      format: 'JSONEachRow',
    })
    expect(await rs.json()).toEqual([{ n: '2500', u: '2500' }])
  })

  it('loads a gzip-compressed NDJSON file', async () => {
    const items = swaps('gzip', 1_200)
    const file = join(dir, 'swaps.jsonl.gz')
    writeFileSync(file, gzipSync(ndjson(items)))
    const result = await runBackfill(['--type', 'swap', '--wait', file], rt.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('accepted: 1,200')
    await expectStoredOnce(items)
  })

  it('loads a CSV file with flattened nested fields and empty cells as absent', async () => {
    const items = swaps('csv', 900)
    const file = join(dir, 'swaps.csv')
    writeFileSync(file, [SWAP_CSV_HEADER, ...items.map(swapCsvRow)].join('\n') + '\n')
    const result = await runBackfill(['--type', 'swap', '--batch-size', '400', '--wait', file], rt.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('accepted: 900')
    expect(result.stdout).toContain('rejected: 0')
    await expectStoredOnce(items)
  })

  it('reports invalid lines as rejected, keeps them in the dead-letter store with their reasons, and loads the rest', async () => {
    const good = swaps('mixed', 20)
    const badAddress = { ...makeSwap('mixed-bad', 1), wallet_address: '0x1234' }
    const numericAmount = JSON.stringify(makeSwap('mixed-bad', 2)).replace(/"amount_raw":"(\d+)"/, '"amount_raw":$1')
    const lines = [
      ...good.slice(0, 10).map((s) => JSON.stringify(s)),
      JSON.stringify(badAddress),
      '{"hash": "0xabc", this is not json',
      numericAmount,
      ...good.slice(10).map((s) => JSON.stringify(s)),
    ]
    const file = join(dir, 'mixed.ndjson')
    writeFileSync(file, lines.join('\n') + '\n')
    const result = await runBackfill(['--type', 'swap', '--wait', file], rt.env)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('records read: 23 in ')
    expect(result.stdout).toContain('accepted: 20')
    expect(result.stdout).toContain('rejected: 3 (reasons: npm run dead-letters -- list --type swap)')
    await expectStoredOnce(good)

    const rs = await rt.clickhouse.query({
      query: `SELECT payload, payload_format, line, reason, source FROM ${rt.tables.deadLetters} FINAL WHERE source = {src:String} ORDER BY line`,
      query_params: { src: file },
      format: 'JSONEachRow',
    })
    const letters = await rs.json<{ payload: string; payload_format: string; line: string | number; reason: string; source: string }>()
    // Each names its line and holds the line exactly as it was in the file.
    expect(letters.map((l) => [Number(l.line), l.payload, l.payload_format])).toEqual([
      [11, lines[10], 'ndjson'],
      [12, lines[11], 'ndjson'],
      [13, lines[12], 'ndjson'],
    ])
    expect(letters[0]!.reason).toMatch(/wallet_address/)
    expect(letters[1]!.reason).toMatch(/^line: not valid JSON \(/)
    expect(letters.find((l) => l.reason.includes('amount_raw'))!.reason).toMatch(/decimal string/)
  })
})

describe('npm run backfill refuses, or stops, with a clear message', () => {
  async function keysUnder(prefix: string): Promise<string[]> {
    const redis = createRedis(rt.config.redis.url)
    try {
      return await redis.keys(`${prefix}:*`)
    } finally {
      redis.disconnect()
    }
  }

  it('a missing file among good ones: exit code 2, a clear message, the queue untouched', async () => {
    const good = join(dir, 'good.ndjson')
    writeFileSync(good, ndjson(swaps('refuse', 3)))
    const prefix = `test-refuse-${randomBytes(4).toString('hex')}`
    const missing = join(dir, 'missing.ndjson')
    const result = await runBackfill(['--type', 'swap', good, missing], { ...rt.env, REDIS_PREFIX: prefix })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`${missing}: no such file; nothing was enqueued`)
    expect(await keysUnder(prefix)).toEqual([])
  })

  it('an unknown type: exit code 2, the known types named, the queue untouched', async () => {
    const good = join(dir, 'good.ndjson')
    const prefix = `test-refuse-${randomBytes(4).toString('hex')}`
    const result = await runBackfill(['--type', 'trade', good], { ...rt.env, REDIS_PREFIX: prefix })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`unknown --type "trade" (expected one of: ${RECORD_TYPES.join(', ')})`)
    expect(await keysUnder(prefix)).toEqual([])
  })

  it('a gzip file cut short: exit code 1 naming the file', async () => {
    const whole = gzipSync(ndjson(swaps('cut', 5_000)))
    const cut = join(dir, 'cut.ndjson.gz')
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)))
    const prefix = `test-cut-${randomBytes(4).toString('hex')}`
    const result = await runBackfill(['--type', 'swap', cut], { ...rt.env, REDIS_PREFIX: prefix })
    const redis = createRedis(rt.config.redis.url)
    await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${cut}: unexpected end of file (stopped after `)
  })

  it('Redis out of reach: exit code 1 naming REDIS_URL', async () => {
    const result = await runBackfill(['--type', 'swap', join(dir, 'good.ndjson')], { ...rt.env, REDIS_URL: 'redis://127.0.0.1:1' })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('cannot reach Redis at redis://127.0.0.1:1 (REDIS_URL); nothing was enqueued')
  })

  it('no files or no type: exit code 2 with the usage', async () => {
    const noFiles = await runBackfill(['--type', 'swap'], rt.env)
    expect(noFiles.code).toBe(2)
    expect(noFiles.stderr).toContain('no files given')
    expect(noFiles.stderr).toContain('Usage: npm run backfill')
    const noType = await runBackfill([join(dir, 'good.ndjson')], rt.env)
    expect(noType.code).toBe(2)
    expect(noType.stderr).toContain('--type is required')
  })
})
