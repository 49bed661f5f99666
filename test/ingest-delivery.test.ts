import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchWriter, RowsRejectedError } from '../ingest/pipeline/batch-writer.js'
import { createLogger } from '../shared/platform/logger.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { countRows, startIngestHarness, waitForJob } from './support/ingest-harness.js'
import { swapInput } from './support/record-inputs.js'
import { hashFor } from './support/factories.js'
import { swapRow } from '../ingest/pipeline/table-rows.js'
import { swapRecord } from '../shared/records/records.js'

describe('ingest delivery guarantees', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('on shutdown, inserts the rows still buffered and completes their job before closing', async () => {
    // Nothing flushes on its own for a minute: only stop() can write these rows.
    const config = { ...rt.config, ingest: { ...rt.config.ingest, flushMs: 60_000, flushRows: 1_000_000, concurrency: 4 } }
    const ingest = await startIngestHarness({ ...rt, config })
    try {
      const records = Array.from({ length: 500 }, (_, i) => swapInput(`shutdown-${i}`))
      const jobId = await ingest.producer.send('swap', records, 'shutdown-test')
      await waitUntil(async () => (await ingest.producer.queue.getJobState(jobId)) === 'active')
      await new Promise((r) => setTimeout(r, 200))
      expect(await countRows(rt, rt.tables.swaps, false)).toBe(0)

      await ingest.role.stop()
      expect(await countRows(rt, rt.tables.swaps, true)).toBe(500)
      expect(await waitForJob(ingest.producer, jobId, 1_000)).toEqual({ accepted: 500, rejected: 0 })
    } finally {
      await ingest.close()
    }
  })

  it('retries a job whose insert failed for a while, until it lands', async () => {
    const ingest = await startIngestHarness(rt)
    const away = `${rt.tables.database}.swaps_away`
    try {
      await rt.clickhouse.command({ query: `RENAME TABLE ${rt.tables.swaps} TO ${away}` })
      const jobId = await ingest.producer.send('swap', [swapInput('retry-1'), swapInput('retry-2')], 'retry-test')
      // The first attempt fails (no such table) and BullMQ schedules a retry with backoff.
      await waitUntil(async () => {
        const job = await ingest.producer.queue.getJob(jobId)
        return (job?.attemptsMade ?? 0) >= 1
      })
      await rt.clickhouse.command({ query: `RENAME TABLE ${away} TO ${rt.tables.swaps}` })
      expect(await ingest.finished(jobId)).toEqual({ accepted: 2, rejected: 0 })
      const job = await ingest.producer.queue.getJob(jobId)
      expect(job!.attemptsMade).toBeGreaterThanOrEqual(2)
      const rs = await rt.clickhouse.query({
        query: `SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)}`,
        query_params: { h: [hashFor('retry-1'), hashFor('retry-2')] },
        format: 'JSONEachRow',
      })
      expect(await rs.json()).toEqual([{ n: '2' }])
    } finally {
      await ingest.close()
    }
  })

  it('flushes at once when every job slot is waiting, and on the row count, without waiting for the timer', async () => {
    const writer = new BatchWriter(rt.clickhouse, { flushRows: 3, flushMs: 60_000, flushWhenWaiting: 2 }, createLogger('silent'))
    const row = (label: string) => swapRow(swapRecord.parse(swapInput(label)), Date.now())
    const first = writer.write([{ table: rt.tables.swaps, rows: [row('slots-1')] }])
    await new Promise((r) => setTimeout(r, 100))
    expect(writer.bufferedRows).toBe(1) // one slot waiting: the timer (a minute) would decide
    await writer.write([{ table: rt.tables.swaps, rows: [row('slots-2')] }]) // both slots waiting: flush now
    await first
    await writer.write([{ table: rt.tables.swaps, rows: [row('rows-1'), row('rows-2'), row('rows-3')] }]) // flushRows reached
    expect(writer.bufferedRows).toBe(0)
    const rs = await rt.clickhouse.query({
      query: `SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)}`,
      query_params: { h: ['slots-1', 'slots-2', 'rows-1', 'rows-2', 'rows-3'].map(hashFor) },
      format: 'JSONEachRow',
    })
    expect(await rs.json()).toEqual([{ n: '5' }])
  })

  it('when ClickHouse refuses one batch of rows, the batches inserted with it still land', async () => {
    const writer = new BatchWriter(rt.clickhouse, { flushRows: 1_000_000, flushMs: 50 }, createLogger('silent'))
    const good = [swapRow(swapRecord.parse(swapInput('isolated-good')), Date.now())]
    const bad = [{ ...good[0]!, hash: hashFor('isolated-bad'), token_sold_amount: 'not a number' }]
    const [goodWrite, badWrite] = await Promise.allSettled([
      writer.write([{ table: rt.tables.swaps, rows: good }]),
      writer.write([{ table: rt.tables.swaps, rows: bad }]),
    ])
    expect(goodWrite.status).toBe('fulfilled')
    expect(badWrite.status).toBe('rejected')
    expect((badWrite as PromiseRejectedResult).reason).toBeInstanceOf(RowsRejectedError)
    const rs = await rt.clickhouse.query({
      query: `SELECT hash FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)}`,
      query_params: { h: [hashFor('isolated-good'), hashFor('isolated-bad')] },
      format: 'JSONEachRow',
    })
    expect(await rs.json()).toEqual([{ hash: hashFor('isolated-good') }])
  })
})

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 25))
  }
}
