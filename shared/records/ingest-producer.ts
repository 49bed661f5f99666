import type { JobsOptions } from 'bullmq'
import type { Config } from '../platform/config.js'
import type { Logger } from '../platform/logger.js'
import { QueueFactory, type TypedQueue } from '../platform/queue-factory.js'
import { QueueNames, type SourceLines } from '../platform/queues.js'
import type { RecordInput } from './records.js'
import type { RecordType } from '../platform/queues.js'

/**
 * What producers, the backfill command and the sample loader call to enqueue records.
 * A job carries a batch of records of one type; the worker validates each record, so
 * a producer may send records as received without validating them itself.
 */
export class IngestProducer {
  private readonly queues: QueueFactory
  readonly queue: TypedQueue<typeof QueueNames.ingest>

  constructor(config: Pick<Config, 'redis' | 'ingest'>, logger?: Logger) {
    this.queues = new QueueFactory(config, logger)
    this.queue = this.queues.queue(QueueNames.ingest)
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

  /**
   * Enqueues one job of lines of a file as read (NDJSON lines or CSV records): the worker
   * parses them, and dead-letters a refused one with its text and line number.
   */
  async sendLines(type: RecordType, texts: string[], source: string, lines: SourceLines, options: JobsOptions = {}): Promise<string> {
    const job = await this.queue.add(type, { type, records: texts, source, lines }, options)
    return job.id!
  }

  /** Enqueues many jobs in one round trip. */
  async sendMany(jobs: Array<{ type: RecordType; records: unknown[]; source: string }>): Promise<string[]> {
    const added = await this.queue.addBulk(jobs.map((j) => ({ name: j.type, data: j })))
    return added.map((job) => job.id!)
  }

  async close(): Promise<void> {
    await this.queues.close()
  }
}
