import { QueueFactory } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames } from '../shared/platform/queues.js'
import type { Runtime } from '../shared/runtime.js'

const UNFINISHED = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'])

/**
 * Once the given ingest jobs have all finished (or `timeoutMs` passed), enqueues one
 * recompute-all, so data loaded at start (the sample dataset) has indicator results
 * without waiting for the next 4-hour boundary. Never throws: a failure is logged (the
 * scheduler and the on-demand path still compute every token).
 */
export async function recomputeAllAfterIngestJobs(runtime: Runtime, jobIds: string[], timeoutMs = 10 * 60_000): Promise<void> {
  const { config, logger } = runtime
  const queues = new QueueFactory(config, logger)
  const ingest = queues.queue(QueueNames.ingest)
  const indicators = queues.queue(QueueNames.indicators)
  try {
    const deadline = Date.now() + timeoutMs
    let pending = [...jobIds]
    while (pending.length > 0 && Date.now() < deadline) {
      const states = await Promise.all(pending.map((id) => ingest.getJobState(id)))
      pending = pending.filter((_, i) => UNFINISHED.has(states[i]!))
      if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    await indicators.add(IndicatorJobNames.recomputeAll, {}, { deduplication: { id: 'recompute-all-after-ingest' } })
    logger.info('ingest jobs finished: enqueued a recompute of every token', { jobs: jobIds.length, unfinished: pending.length })
  } catch (err) {
    logger.warn('could not enqueue the recompute after ingestion', { err })
  } finally {
    // Also when the service stopped meanwhile and closed Redis: never an unhandled rejection.
    await queues.close().catch((err: unknown) => logger.debug('closing the recompute queues failed', { err }))
  }
}
