import { UnrecoverableError } from 'bullmq'
import type { Config } from '../../shared/platform/config.js'
import type { Logger } from '../../shared/platform/logger.js'
import type { QueueFactory, TypedWorker } from '../../shared/platform/queue-factory.js'
import { QueueNames } from '../../shared/platform/queues.js'
import { RowsRejectedError } from './batch-writer.js'
import { processIngestJob, type IngestJobContext } from './ingest-job.js'

/**
 * The BullMQ worker of the ingest queue. A job completes (and is acknowledged) only
 * after its rows are inserted; a process that dies before that leaves the job active,
 * BullMQ finds it stalled and delivers it again, and the tables' keys make the second
 * delivery harmless.
 */
export function createIngestWorker(
  config: Pick<Config, 'ingest'>,
  queues: QueueFactory,
  ctx: IngestJobContext,
  logger: Logger,
): TypedWorker<typeof QueueNames.ingest> {
  const worker = queues.worker(
    QueueNames.ingest,
    async (job) => {
      try {
        const processed = processIngestJob(job.data, ctx)
        // processIngestJob reads the records before its first await: from here on only its
        // encoded rows wait for the insert, and the parsed records (thousands of objects
        // per job) die young instead of being promoted and traced while the job waits.
        job.data = { ...job.data, records: [] }
        return await processed
      } catch (err) {
        if (err instanceof RowsRejectedError) throw new UnrecoverableError(`ClickHouse refused the rows: ${err.message}`)
        throw err
      }
    },
    {
      concurrency: config.ingest.concurrency,
      // A job that stalls (its process died) goes back to the queue several times
      // before BullMQ gives up on it: nothing acknowledged is ever lost, and a crash
      // loop still ends in the failed set rather than spinning forever.
      maxStalledCount: 5,
      stalledInterval: config.ingest.stalledMs,
      lockDuration: config.ingest.stalledMs,
    },
  )
  // A completed job's rows are in ClickHouse: drop its records from Redis (a job of
  // 5,000 swaps is ~2.5 MB) and keep the result that `backfill --wait` reads.
  worker.on('completed', (job) => {
    const { type, source } = job.data
    job.updateData({ type, source, records: [] }).catch((err: unknown) => {
      logger.debug('could not drop the records of a completed job', { jobId: job.id, err })
    })
  })
  worker.on('failed', (job, err) => {
    logger.warn('ingest job failed', { jobId: job?.id, attempts: job?.attemptsMade, err })
  })
  return worker
}
