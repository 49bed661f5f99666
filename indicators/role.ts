import { IndicatorJobNames } from '../shared/queues.js'
import { createRedis } from '../shared/redis.js'
import type { RunningRole, Runtime } from '../shared/runtime.js'
import { startCandleRefresher } from './candle-refresher.js'
import { IndicatorEngine } from './engine.js'
import { openIndicatorQueue } from './indicator-queue.js'
import { scheduleAdvance } from './schedule.js'
import { startIndicatorsWorker } from './worker.js'

/**
 * The indicator engine: a worker on the indicators queue, the 4-hourly job scheduler of
 * the incremental step, the candle refresher (recomputes after ingestion), and one
 * recompute-all at start so results and states exist without waiting for the next boundary.
 * `clock` (default: the real one) decides the last closed interval; tests hand a fixed one.
 */
export async function startIndicatorsRole(runtime: Runtime, options: { clock?: () => number } = {}): Promise<RunningRole> {
  const { config, logger } = runtime
  const clock = options.clock ?? Date.now
  const commands = createRedis(config.redis.url, 'commands')
  const queueConnection = createRedis(config.redis.url, 'bullmq')
  const workerConnection = createRedis(config.redis.url, 'bullmq')
  for (const c of [commands, queueConnection, workerConnection]) {
    c.on('error', (err: Error) => logger.debug('redis connection error', { err }))
  }
  const engine = new IndicatorEngine({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    redis: commands,
    redisPrefix: config.redis.prefix,
    logger,
    clock,
  })
  const queue = openIndicatorQueue(config.redis, queueConnection)
  queue.on('error', (err) => logger.warn('indicators queue error', { err }))
  await scheduleAdvance(queue, config.indicators.scheduleDelayMs)
  await queue.add(IndicatorJobNames.recomputeAll, {}, { deduplication: { id: 'recompute-all-at-start' } })
  const worker = startIndicatorsWorker(engine, config.redis, workerConnection, config.indicators.concurrency, logger)
  const refresher = startCandleRefresher({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    queue,
    logger,
    intervalMs: config.indicators.candleRefreshMs,
    clock,
  })
  logger.info('indicator engine started', { scheduleDelayMs: config.indicators.scheduleDelayMs })
  return {
    name: 'indicators',
    async stop() {
      await refresher.stop()
      await worker.close()
      await queue.close()
      for (const c of [commands, queueConnection, workerConnection]) c.disconnect()
    },
  }
}
