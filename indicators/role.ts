import { QueueFactory } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames } from '../shared/platform/queues.js'
import { createRedis } from '../shared/platform/redis.js'
import type { RunningRole, Runtime } from '../shared/runtime.js'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { startAlerts } from './alert-runner.js'
import { startCandleRefresher } from './candle-refresher.js'
import { IndicatorEngine } from './engine.js'
import { scheduleAdvance } from './schedule.js'
import { startTokenFlowsRefresher } from './token-flows-refresher.js'
import { startTrackedSetPublisher } from './tracked-set-publisher.js'
import { startWalletStatsRefresher } from './wallet-stats-refresher.js'
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
  const commands = createRedis(config.redis.url, 'commands', logger)
  const queues = new QueueFactory(config, logger)
  const engine = new IndicatorEngine({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    redis: commands,
    redisPrefix: config.redis.prefix,
    logger,
    clock,
  })
  const queue = queues.queue(QueueNames.indicators)
  await scheduleAdvance(queue, config.indicators.scheduleDelayMs)
  await queue.add(IndicatorJobNames.recomputeAll, {}, { deduplication: { id: 'recompute-all-at-start' } })
  const worker = startIndicatorsWorker(engine, queues, config.indicators.concurrency, logger)
  const refresher = startCandleRefresher({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    queue,
    logger,
    intervalMs: config.indicators.candleRefreshMs,
    clock,
  })
  const tokenFlows = startTokenFlowsRefresher({ clickhouse: runtime.clickhouse, tables: runtime.tables, logger, intervalMs: config.indicators.tokenFlowsRefreshMs })
  const walletStats = startWalletStatsRefresher({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    logger,
    intervalMs: config.smartMoney.refreshMs,
    maxAgeMs: config.smartMoney.maxAgeMs,
    clock,
  })
  // The served tracked set is published only when the reads follow it (SERVED_WALLETS=tracked).
  const trackedSet =
    config.smartMoney.servedWallets === 'tracked'
      ? startTrackedSetPublisher({
          clickhouse: runtime.clickhouse,
          tables: runtime.tables,
          logger,
          trackedWallets: new TrackedWalletsFile(config.smartMoney.trackedWalletsFile),
          rules: config.smartMoney.rules,
          intervalMs: config.smartMoney.trackedSetRefreshMs,
        })
      : null
  const alerts = startAlerts({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    logger,
    queues,
    trackedWalletsFile: config.smartMoney.trackedWalletsFile,
    stalledMs: config.indicators.alertDeliveryStalledMs,
  })
  logger.info('indicator engine started', { scheduleDelayMs: config.indicators.scheduleDelayMs })
  return {
    name: 'indicators',
    async stop() {
      await refresher.stop()
      await tokenFlows.stop()
      await alerts.stop()
      await walletStats.stop()
      await trackedSet?.stop()
      await worker.close()
      await queues.close()
      commands.disconnect()
    },
  }
}
