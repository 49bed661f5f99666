import { Job } from 'bullmq'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { IngestJobResult } from '../../shared/platform/queues.js'
import type { RunningRole, Runtime } from '../../shared/runtime.js'
import { startIngestRole } from '../../ingest/role.js'

/** The ingest role running in the test process, and a producer for its queue. */
export interface IngestHarness {
  producer: IngestProducer
  role: RunningRole
  /** Waits until the job is completed (returns its result) or failed (throws its reason). */
  finished(jobId: string, timeoutMs?: number): Promise<IngestJobResult>
  close(): Promise<void>
}

export async function startIngestHarness(runtime: Runtime): Promise<IngestHarness> {
  const producer = new IngestProducer(runtime.config)
  const role = await startIngestRole(runtime)
  let stopped = false
  return {
    producer,
    role,
    finished: (jobId, timeoutMs = 30_000) => waitForJob(producer, jobId, timeoutMs),
    async close() {
      if (!stopped) await role.stop()
      stopped = true
      await producer.close()
    },
  }
}

export async function waitForJob(producer: IngestProducer, jobId: string, timeoutMs = 30_000): Promise<IngestJobResult> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    // The state first: a job read before its state could predate its completion.
    const state = await producer.queue.getJobState(jobId)
    if (state === 'completed' || state === 'failed') {
      const job = await Job.fromId(producer.queue, jobId)
      if (!job) throw new Error(`job ${jobId} not found`)
      if (state === 'failed') throw new Error(`job ${jobId} failed: ${job.failedReason}`)
      return job.returnvalue as IngestJobResult
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${state} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Rows as ClickHouse serves them after deduplication (FINAL) and as stored (raw). */
export async function countRows(runtime: Runtime, table: string, final: boolean): Promise<number> {
  const rs = await runtime.clickhouse.query({
    query: `SELECT count() AS n FROM ${table} ${final ? 'FINAL' : ''}`,
    format: 'JSONEachRow',
  })
  const [row] = await rs.json<{ n: string }>()
  return Number(row!.n)
}
