import { Gauge, Registry } from 'prom-client'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Config } from '../shared/platform/config.js'
import type { Logger } from '../shared/platform/logger.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'
import { newestIndicatorResultAt } from './indicator-freshness.js'

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const

/**
 * Gauges read when Prometheus scrapes: each queue's jobs by state, the dead letters not
 * yet re-driven, and how fresh the indicator results are. They live in a registry of this
 * API's own (several APIs may share a process in tests), merged with the process's
 * metrics at scrape time.
 */
export class QueueMetrics {
  readonly registry = new Registry()
  private readonly factory: QueueFactory
  private readonly commands: Redis

  constructor(config: Pick<Config, 'redis' | 'ingest'>, clickhouse: ClickHouseClient, tables: Tables, logger?: Logger) {
    // Fail fast: a scrape while Redis is down errors at once instead of hanging.
    this.factory = new QueueFactory(config, logger, { failFast: true })
    const queues = Object.values(QueueNames).map((name) => this.factory.queue(name))
    const indicators = this.factory.queue(QueueNames.indicators)
    const commands = (this.commands = createRedis(config.redis.url, 'commands', logger))
    if (!logger) commands.on('error', () => undefined)
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue, by state',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset()
        for (const queue of queues) {
          const counts = await queue.getJobCounts(...STATES)
          for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0)
        }
      },
    })
    new Gauge({
      name: 'dead_letters_pending',
      help: 'Records set aside with their reasons and not re-driven yet',
      registers: [this.registry],
      async collect() {
        const [row] = await queryRows<{ n: string | number }>(
          clickhouse,
          `SELECT count() AS n FROM ${tables.deadLetters} FINAL WHERE redriven_at IS NULL`,
        )
        this.set(Number(row?.n ?? 0))
      },
    })
    new Gauge({
      name: 'indicator_result_age_seconds',
      help: 'Seconds since the indicator engine last wrote a technical-analysis result (absent: none on record in the queue events)',
      // A labelled gauge can be absent (an unlabelled one always shows a value): `absent()` alerts on it.
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        this.reset()
        const at = await newestIndicatorResultAt(commands, indicators)
        if (at !== null) this.set({ queue: indicators.name }, Math.max(0, (Date.now() - at) / 1000))
      },
    })
  }

  async close(): Promise<void> {
    await this.factory.close()
    this.commands.disconnect()
  }
}
