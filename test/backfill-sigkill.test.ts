import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Queue } from 'bullmq'
import { afterAll, describe, expect, it } from 'vitest'
import { createClickHouse } from '../shared/storage/clickhouse.js'
import { loadConfig } from '../shared/platform/config.js'
import { QueueNames } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { tablesFor } from '../shared/storage/tables.js'
import { makeSwap, readSwaps, runBackfill, spawnTsx, storedSwap } from './support/backfill-files.js'
import { testEnv } from './support/runtime.js'

/**
 * A worker process killed with SIGKILL in the middle of a backfill, then restarted:
 * every record is present exactly once. The worker children own the embedded data
 * directory; this process opens it only after the last child exited (chDB allows one
 * process per data directory).
 */

const N = 100_000
const BATCH = 2_000
const dir = mkdtempSync(join(tmpdir(), 'backfill-sigkill-'))
const dataDir = mkdtempSync(join(tmpdir(), 'backfill-sigkill-data-'))
const env = testEnv({
  CLICKHOUSE_PATH: dataDir,
  INGEST_STALLED_MS: '2000',
  INGEST_CONCURRENCY: '4',
  INGEST_FLUSH_ROWS: '10000',
  LOG_LEVEL: 'info',
})
const config = loadConfig(env)
const bullConnection = createRedis(config.redis.url, 'bullmq')
const queue = new Queue(QueueNames.ingest, { connection: bullConnection, prefix: config.redis.prefix })
const children = new Set<ChildProcess>()

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await queue.close()
  const redis = createRedis(config.redis.url)
  await deleteKeysWithPrefix(redis, config.redis.prefix)
  redis.disconnect()
  bullConnection.disconnect()
  rmSync(dir, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

/** Starts `npm run start:ingest` (ingest/main.ts) and resolves once its worker is ready. */
async function startWorker(): Promise<{ child: ChildProcess; exited: Promise<number | null>; log: () => string }> {
  const child = spawnTsx('ingest/main.ts', [], env)
  children.add(child)
  let log = ''
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child)
      resolve(code)
    }),
  )
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${log}`)), 60_000)
    child.stderr!.on('data', (d: Buffer) => {
      log += d.toString()
      if (log.includes('ingest worker started')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on('exit', (code) => reject(new Error(`worker exited with ${code} before it started:\n${log}`)))
  })
  return { child, exited, log: () => log }
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('a worker process killed with SIGKILL in the middle of a backfill', () => {
  it('loses nothing and doubles nothing once restarted', { timeout: 240_000 }, async () => {
    const items = Array.from({ length: N }, (_, i) => makeSwap('sigkill', i))
    const file = join(dir, 'swaps.ndjson')
    writeFileSync(file, items.map((s) => JSON.stringify(s)).join('\n') + '\n')
    const jobs = N / BATCH

    const first = await startWorker()
    const backfill = runBackfill(['--type', 'swap', '--batch-size', String(BATCH), file], env)
    // Killed while jobs are in hand: they are redelivered once their locks expire.
    await until(
      async () => {
        const c = await queue.getJobCounts('completed', 'active')
        return c.completed! >= 5 && c.active! >= 1
      },
      120_000,
      'the first jobs to complete while others are in hand',
    )
    first.child.kill('SIGKILL')
    expect(await first.exited).toBeNull()
    const completedAtKill = (await queue.getJobCounts('completed')).completed!
    expect(completedAtKill).toBeLessThan(jobs)

    const enqueued = await backfill
    expect(enqueued.code).toBe(0)
    expect(enqueued.stdout).toContain(`records read: ${N.toLocaleString('en-US')} in `)

    const second = await startWorker()
    await until(
      async () => {
        const c = await queue.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed', 'prioritized')
        return c.completed! + c.failed! === jobs
      },
      120_000,
      'the queue to drain',
    )
    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: jobs, failed: 0 })

    // Every child has exited: now this process may open the data directory.
    const clickhouse = createClickHouse(config.clickhouse)
    const tables = tablesFor(config.clickhouse.database)
    try {
      const rs = await clickhouse.query({
        query: `SELECT count() AS n, uniqExact(hash) AS distinct_hashes FROM ${tables.swaps} FINAL`,
        format: 'JSONEachRow',
      })
      expect(await rs.json()).toEqual([{ n: String(N), distinct_hashes: String(N) }])
      const sample = items.filter((_, i) => i % 97 === 0)
      const stored = await readSwaps(clickhouse, tables, sample.map((s) => s.hash))
      expect(stored).toEqual(sample.map(storedSwap).sort((a, b) => a.hash.localeCompare(b.hash)))
    } finally {
      await clickhouse.close()
    }
  })
})
