import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchEnqueuer } from '../ingest/cli/backfill/batch-enqueuer.js'
import { JobWaiter } from '../ingest/cli/backfill/job-waiter.js'
import { startIngestRole } from '../ingest/role.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { makeSwap, readSwaps, spawnTsx, type CommandResult } from './support/backfill-files.js'
import { waitForJob } from './support/ingest-harness.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Redis losing its data during `backfill --wait`: BullMQ's job counter starts again, so
 * the ids the command waits for could name other jobs. The command must never count a
 * job it did not enqueue, never count one twice, and must say how many records it cannot
 * vouch for (exit code 1) instead of claiming success. Real Redis (this test's own key
 * prefix only), real worker, real embedded ClickHouse.
 */

const dir = mkdtempSync(join(tmpdir(), 'backfill-redis-loss-'))
let rt: TestRuntime
let role: RunningRole | undefined
let producer: IngestProducer

beforeAll(async () => {
  rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
  producer = new IngestProducer(rt.config)
})
afterAll(async () => {
  await role?.stop()
  await producer?.close()
  await rt?.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

async function flushOurKeys(): Promise<number> {
  const redis = createRedis(rt.config.redis.url)
  try {
    return await deleteKeysWithPrefix(redis, rt.config.redis.prefix)
  } finally {
    redis.disconnect()
  }
}

function ndjson(items: unknown[]): string {
  return items.map((s) => JSON.stringify(s)).join('\n') + '\n'
}

describe('backfill job ids', () => {
  it('are unique per run and batch, so a run after Redis lost its data never re-uses an id', async () => {
    const run = async () => {
      const enqueuer = new BatchEnqueuer(producer, 'swap', 'f.ndjson', 2, 4)
      for (let line = 1; line <= 5; line++) await enqueuer.add({ text: JSON.stringify({ line }), line })
      await enqueuer.finish()
      return enqueuer.jobs
    }
    const first = await run()
    await flushOurKeys()
    const second = await run()
    expect(first.map((j) => j.records)).toEqual([2, 2, 1])
    expect(first.map((j) => j.source)).toEqual(['f.ndjson:1-2', 'f.ndjson:3-4', 'f.ndjson:5-5'])
    const ids = [...first, ...second].map((j) => j.id)
    expect(new Set(ids).size).toBe(6)
    for (const id of ids) expect(id).toMatch(/^backfill-[0-9a-z]+-\d+-\d+$/)
    await flushOurKeys()
  })
})

describe('waiting for the jobs of a backfill', () => {
  it('counts each job once, however often its id is given', async () => {
    role ??= await startIngestRole(rt)
    const a = await producer.send('swap', [makeSwap('once', 1), makeSwap('once', 2)], 'once')
    const b = await producer.send('swap', [makeSwap('once', 3)], 'once')
    const waiter = new JobWaiter(producer.queue, [a, a, b, a], 20)
    const totals = await waiter.waitAll()
    expect(totals).toMatchObject({ finished: 2, accepted: 3, rejected: 0, failed: [], vanished: 0 })
    expect(waiter.lost).toEqual([])
  })

  it('reports the jobs that vanished from Redis, with their records, as not confirmed', async () => {
    const kept = await producer.send('swap', [makeSwap('vanish', 1)], 'vanish')
    await waitForJob(producer, kept)
    const waiter = new JobWaiter(
      producer.queue,
      [
        { id: kept, records: 1, source: 'vanish' },
        { id: 'backfill-gone-1-1', records: 5_000, source: 'x.ndjson:1-5000' },
        { id: 'backfill-gone-1-2', records: 1_234, source: 'x.ndjson:5001-6234' },
      ],
      20,
    )
    const totals = await waiter.waitAll()
    expect(totals).toMatchObject({ finished: 3, accepted: 1, vanished: 2 })
    expect(waiter.lost.map((j) => j.records)).toEqual([5_000, 1_234])
  })
})

describe('npm run backfill --wait while Redis loses its data', () => {
  it('does not count other jobs that took its ids: it names the records it cannot vouch for and exits 1', async () => {
    await role?.stop()
    role = undefined
    await flushOurKeys()

    const ours = Array.from({ length: 400 }, (_, i) => makeSwap('ours', i))
    const file = join(dir, 'ours.ndjson')
    writeFileSync(file, ndjson(ours))
    const child = spawnTsx('ingest/cli/backfill-cli.ts', ['--type', 'swap', '--batch-size', '100', '--wait', file], rt.env)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const done = new Promise<CommandResult>((resolve, reject) => {
      child.on('error', reject)
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
    })

    // Every batch enqueued, no worker yet: the command waits.
    const deadline = Date.now() + 30_000
    while (!stderr.includes('no ingest worker is connected')) {
      if (Date.now() > deadline) throw new Error(`the command did not start waiting: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    // Redis loses everything; other producers' jobs come in and get the ids 1, 2, 3...
    await flushOurKeys()
    const theirs = Array.from({ length: 4 }, (_, j) => Array.from({ length: 100 }, (_, i) => makeSwap(`theirs-${j}`, i)))
    for (const batch of theirs) await producer.send('swap', batch, 'another-producer')
    role = await startIngestRole(rt)

    const result = await done
    expect(result.code).toBe(1)
    expect(result.stdout).not.toContain('accepted: 400')
    expect(result.stdout).toContain('accepted: 0')
    expect(result.stdout).toMatch(/not confirmed: 400 records in 4 jobs/)
    expect(result.stdout).toContain(`${file}:1-100`)
    expect(await readSwaps(rt.clickhouse, rt.tables, ours.map((s) => s.hash))).toEqual([])
  })
})
