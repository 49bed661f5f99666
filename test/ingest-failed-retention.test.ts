import { Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../shared/platform/config.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { QueueNames, type IngestJobData } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { testEnv } from './support/runtime.js'

/**
 * Failed ingest jobs keep their records (for inspection and retry), but only the newest
 * INGEST_FAILED_JOBS_KEEP of them, for at most INGEST_FAILED_JOBS_MAX_AGE_HOURS: every job
 * of ~2.5 MB kept forever would grow Redis without bound. A worker that fails every job
 * stands for any permanent failure (the retention is the job's own option).
 */
describe('failed ingest jobs are kept bounded', () => {
  const config = loadConfig(testEnv({ INGEST_MAX_ATTEMPTS: '1', INGEST_FAILED_JOBS_KEEP: '3' }))
  const producer = new IngestProducer(config)
  const connection = createRedis(config.redis.url, 'bullmq')
  let worker: Worker<IngestJobData>

  beforeAll(async () => {
    worker = new Worker<IngestJobData>(
      QueueNames.ingest,
      async () => {
        throw new Error('ClickHouse is gone')
      },
      { connection, prefix: config.redis.prefix },
    )
    await worker.waitUntilReady()
  })
  afterAll(async () => {
    await worker.close()
    await producer.close()
    const redis = createRedis(config.redis.url)
    await deleteKeysWithPrefix(redis, config.redis.prefix)
    redis.disconnect()
    connection.disconnect()
  })

  it('keeps the newest failed jobs, with their records and reason, up to the configured count', async () => {
    const ids: string[] = []
    for (let i = 0; i < 8; i++) ids.push(await producer.send('price', [{ contract_address: `0x${String(i).padStart(40, '0')}`, n: i }], `src-${i}`))
    await expect
      .poll(async () => (await Promise.all(ids.map((id) => producer.queue.getJobState(id)))).filter((s) => s === 'unknown').length, {
        timeout: 10_000,
      })
      .toBe(5)
    const failed = await producer.queue.getFailed()
    expect(failed.map((job) => job.id).sort()).toEqual(ids.slice(-3).sort())
    for (const job of failed) {
      expect(job.failedReason).toBe('ClickHouse is gone')
      expect(job.data.records).toHaveLength(1)
    }
    expect(failed[0]!.opts.removeOnFail).toEqual({ count: 3, age: 7 * 24 * 3600 })
  })
})
