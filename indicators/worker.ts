import type { Job } from 'bullmq'
import type { Logger } from '../shared/platform/logger.js'
import type { QueueFactory, TypedWorker } from '../shared/platform/queue-factory.js'
import {
  IndicatorJobNames,
  QueueNames,
  type IndicatorJobData,
  type IndicatorJobName,
  type IndicatorJobResult,
} from '../shared/platform/queues.js'
import { address } from '../shared/records/records.js'
import type { IndicatorEngine } from './engine.js'
import type { IndicatorJobPayload } from './indicator-queue.js'

/** The worker of the indicators queue: advance (scheduled), recompute-all (at start), recompute-tokens (after ingestion), recompute-token (on demand). */
export function startIndicatorsWorker(
  engine: IndicatorEngine,
  queues: QueueFactory,
  concurrency: number,
  logger: Logger,
): TypedWorker<typeof QueueNames.indicators> {
  const worker = queues.worker(QueueNames.indicators, async (job) => process(engine, job, logger), { concurrency })
  worker.on('failed', (job, err) => logger.warn('indicator job failed', { job: job?.name, id: job?.id, err }))
  return worker
}

async function process(
  engine: IndicatorEngine,
  job: Job<IndicatorJobPayload, IndicatorJobResult, IndicatorJobName>,
  logger: Logger,
): Promise<IndicatorJobResult> {
  if (job.name === IndicatorJobNames.recomputeAll) {
    const started = Date.now()
    const result = await engine.recomputeAll()
    logger.info('recomputed all tokens', { ...result, ms: Date.now() - started })
    return { written: result.written, skipped: result.skipped }
  }
  if (job.name === IndicatorJobNames.advance) {
    const started = Date.now()
    const result = await engine.advance()
    logger.info('advanced every token to the last closed interval', { ...result, ms: Date.now() - started })
    return { written: result.stepped + result.recomputed }
  }
  if (job.name === IndicatorJobNames.recomputeTokens) {
    // Before reading anything: the same changes queued from now on are a job of their own.
    await job.removeDeduplicationKey()
    const data = job.data as IndicatorJobData['recompute-tokens']
    const changes = (Array.isArray(data.changes) ? data.changes : []).filter(
      (c): c is [string, number | null] => Array.isArray(c) && address.safeParse(c[0]).success && (c[1] === null || Number.isFinite(c[1])),
    )
    const result = await engine.recomputeTokens(changes)
    logger.debug('brought tokens whose closed candles changed up to date', { ...result })
    return { written: result.stepped + result.recomputed }
  }
  if (job.name === IndicatorJobNames.recomputeToken) {
    const data = job.data as IndicatorJobData['recompute-token']
    const parsed = address.safeParse(data.contract_address)
    if (!parsed.success) return { written: 0, reason: `contract_address ${String(data.contract_address)} is not an address` }
    return engine.recomputeToken(parsed.data)
  }
  throw new Error(`unknown indicator job ${String(job.name)}`)
}
