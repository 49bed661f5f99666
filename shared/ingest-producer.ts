import { Queue, type JobsOptions } from 'bullmq'
import type { Config } from './config.js'
import { createRedis, type Redis } from './redis.js'
import { ingestFailedJobRetention, QueueNames, type IngestJobData } from './queues.js'
import type { RecordInput, RecordType } from './records.js'

/**
 * What producers, the backfill command and the sample loader call to enqueue records.
 * A job carries a batch of records of one type; the worker validates each record, so
 * a producer may send records as received without validating them itself.
 */
export class IngestProducer {
  private readonly connection: Redis
  readonly queue: Queue<IngestJobData, unknown, RecordType>

  constructor(config: Pick<Config, 'redis' | 'ingest'>) {
    this.connection = createRedis(config.redis.url, 'bullmq')
    this.queue = new Queue<IngestJobData, unknown, RecordType>(QueueNames.ingest, {
      connection: this.connection,
      prefix: config.redis.prefix,
      defaultJobOptions: {
        attempts: config.ingest.maxAttempts,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: ingestFailedJobRetention(config.ingest.failedJobs),
      },
    })
  }

  /** Enqueues one job holding `records` (or one record); returns the job id. */
  async send<T extends RecordType>(
    type: T,
    records: RecordInput<T> | RecordInput<T>[] | unknown[],
    source = 'producer',
    options: JobsOptions = {},
  ): Promise<string> {
    const batch = Array.isArray(records) ? records : [records]
    const job = await this.queue.add(type, { type, records: batch, source }, options)
    return job.id!
  }

  /** Enqueues many jobs in one round trip. */
  async sendMany(jobs: Array<{ type: RecordType; records: unknown[]; source: string }>): Promise<string[]> {
    const added = await this.queue.addBulk(jobs.map((j) => ({ name: j.type, data: j })))
    return added.map((job) => job.id!)
  }

  async close(): Promise<void> {
    await this.queue.close()
    this.connection.disconnect()
  }
}
