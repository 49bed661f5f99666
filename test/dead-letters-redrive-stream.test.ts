import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redriveDeadLetters, type RedriveSink } from '../ingest/pipeline/dead-letter-redrive.js'
import { deadLetterRow, DeadLetterStore } from '../ingest/pipeline/dead-letter-store.js'
import { startIngestRole } from '../ingest/role.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { DeadLetterReader } from '../shared/dead-letters/dead-letters.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import type { SourceLines } from '../shared/platform/queues.js'
import type { RecordType } from '../shared/platform/queues.js'
import { swapInput } from './support/record-inputs.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A re-drive of 20,000 dead letters is streamed: read a page (1,000) at a time and sent in
 * jobs of at most a page, so memory holds one page whatever the count. Proven by counting
 * the queries the reader sends and the rows each returns, and the jobs that reach the real
 * queue, then by the real worker taking every record back in: the valid ones stored once,
 * the invalid ones dead letters again.
 */

const COUNT = 20_000
const VALID = 25

/** The real client, counting the dead-letter reads that go through it and the most rows one returned. */
function countingReads(client: ClickHouseClient) {
  const stats = { reads: 0, maxRows: 0 }
  const counted = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver)
      return async (params: Parameters<ClickHouseClient['query']>[0]) => {
        const rs = await target.query(params)
        if (!/id > \{after:String\}/.test(params.query)) return rs
        stats.reads++
        const rows = (await rs.json<unknown>()) as unknown[]
        stats.maxRows = Math.max(stats.maxRows, rows.length)
        return { json: async () => rows } as unknown as typeof rs
      }
    },
  })
  return { client: counted as ClickHouseClient, stats }
}

describe('streamed re-drive of many dead letters', () => {
  let rt: TestRuntime
  let producer: IngestProducer

  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '100' })
    producer = new IngestProducer(rt.config)
    const store = new DeadLetterStore(rt.clickhouse, rt.tables)
    const now = Date.now() - 60_000
    for (let start = 0; start < COUNT; start += 5_000) {
      const rows = []
      for (let i = start; i < start + 5_000; i++) {
        // A few are valid now (fixed-up); the rest fail validation again (bad hash).
        const record = i < VALID ? swapInput(`stream-${i}`) : swapInput(`stream-${i}`, { hash: `0xbad${i}` })
        rows.push(deadLetterRow('swap', record, i < VALID ? 'refused by an earlier rule' : 'hash: bad', `feed-${i % 3}`, now))
      }
      await store.insert(rows)
    }
  }, 120_000)
  afterAll(async () => {
    await producer?.close()
    await rt?.cleanup()
  })

  it('reads and sends page by page, never more than a page held, every dead letter sent once', async () => {
    const { client, stats } = countingReads(rt.clickhouse)
    const reader = new DeadLetterReader(client, rt.tables)
    const store = new DeadLetterStore(rt.clickhouse, rt.tables)
    const sent = { jobs: 0, records: 0, maxRecords: 0 }
    const sink: RedriveSink = {
      async send(type: RecordType, records: unknown[], source: string) {
        sent.jobs++
        sent.records += records.length
        sent.maxRecords = Math.max(sent.maxRecords, records.length)
        return producer.send(type, records, source)
      },
      sendLines: (type: RecordType, texts: string[], source: string, lines: SourceLines) => producer.sendLines(type, texts, source, lines),
    }
    const result = await redriveDeadLetters(reader, store, sink, {})
    // 20 full pages, and one more read that finds the end.
    expect(result).toEqual({ redriven: COUNT, jobs: sent.jobs, pages: 20, skipped: 0 })
    expect(stats.reads).toBe(21)
    expect(stats.maxRows).toBe(1_000)
    expect(sent.records).toBe(COUNT)
    expect(sent.maxRecords).toBeLessThanOrEqual(1_000)
    // Three sources per page: three jobs per page at most.
    expect(sent.jobs).toBeLessThanOrEqual(60)
    const counts = await producer.queue.getJobCounts('waiting')
    expect(counts.waiting).toBe(sent.jobs)
    const ids = new Set<string>()
    for (const job of await producer.queue.getJobs(['waiting'], 0, -1)) {
      expect(job.data.records.length).toBeLessThanOrEqual(1_000)
      for (const r of job.data.records as Array<{ hash: string }>) ids.add(r.hash)
    }
    expect(ids.size).toBe(COUNT)
    // Every one marked re-driven: none pending, so a second re-drive finds nothing.
    expect(await reader.count({ pendingOnly: true })).toBe(0)
    expect(await redriveDeadLetters(reader, store, sink, {})).toEqual({ redriven: 0, jobs: 0, pages: 0, skipped: 0 })
  }, 120_000)

  it('the worker takes them in again: the valid ones stored once, the others dead letters again, pending', async () => {
    const ingest = await startIngestRole(rt)
    try {
      const deadline = Date.now() + 120_000
      for (;;) {
        const c = await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')
        expect(c.failed).toBe(0)
        if ((c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0) break
        if (Date.now() > deadline) throw new Error(`not done: ${JSON.stringify(c)}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    } finally {
      await ingest.stop()
    }
    const reader = new DeadLetterReader(rt.clickhouse, rt.tables)
    expect(await reader.count()).toBe(COUNT)
    expect(await reader.count({ pendingOnly: true })).toBe(COUNT - VALID)
    const [row] = await (
      await rt.clickhouse.query({ query: `SELECT count() AS n, uniqExact(hash) AS u FROM ${rt.tables.swaps} FINAL`, format: 'JSONEachRow' })
    ).json<{ n: string; u: string }>()
    expect([Number(row!.n), Number(row!.u)]).toEqual([VALID, VALID])
  }, 180_000)
})
