import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Config } from '../../shared/platform/config.js'
import { DeadLetterReader } from '../../shared/dead-letters/dead-letters.js'
import { IngestProducer } from '../../shared/records/ingest-producer.js'
import type { Logger } from '../../shared/platform/logger.js'
import type { QueueFactory } from '../../shared/platform/queue-factory.js'
import { QueueNames } from '../../shared/platform/queues.js'
import type { Tables } from '../../shared/storage/tables.js'
import { redriveDeadLetters } from './dead-letter-redrive.js'
import { DeadLetterStore } from './dead-letter-store.js'

export interface RedriveWorker {
  close(): Promise<void>
}

/**
 * Runs the re-drives asked for through the admin API or the dead-letters command, one at a
 * time, in the ingest role (the process that may write the store). Each streams its dead
 * letters through the ingest queue (dead-letter-redrive.ts).
 */
export async function startRedriveWorker(
  config: Pick<Config, 'redis' | 'ingest'>,
  queues: QueueFactory,
  clickhouse: ClickHouseClient,
  tables: Tables,
  logger: Logger,
): Promise<RedriveWorker> {
  const producer = new IngestProducer(config, logger)
  const reader = new DeadLetterReader(clickhouse, tables)
  const store = new DeadLetterStore(clickhouse, tables)
  const worker = queues.worker(
    QueueNames.deadLetterRedrive,
    async (job) => {
      const result = await redriveDeadLetters(reader, store, producer, job.data)
      logger.info('dead letters re-driven', { jobId: job.id, selection: job.data, ...result })
      return result
    },
    { concurrency: 1 },
  )
  worker.on('failed', (job, err) => logger.warn('dead-letter re-drive failed', { jobId: job?.id, err }))
  await worker.waitUntilReady()
  return {
    async close() {
      await worker.close()
      await producer.close()
    },
  }
}
