import { Queue } from 'bullmq'
import { Gauge, Registry } from 'prom-client'
import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Config } from '../shared/config.js'
import { queryRows } from '../shared/query-rows.js'
import { QueueNames } from '../shared/queues.js'
import { createRedis } from '../shared/redis.js'
import type { Tables } from '../shared/tables.js'

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const

/**
 * Gauges read when Prometheus scrapes: each queue's jobs by state, and the dead letters
 * not yet re-driven. They live in a registry of this API's own (several APIs may share a
 * process in tests), merged with the process's metrics at scrape time.
 */
export class QueueMetrics {
  readonly registry = new Registry()
  private readonly connection
  private readonly queues: Queue[]

  constructor(redis: Config['redis'], clickhouse: ClickHouseClient, tables: Tables) {
    this.connection = createRedis(redis.url, 'commands')
    this.connection.on('error', () => undefined) // the API's own connection logs outages
    this.queues = Object.values(QueueNames).map((name) => new Queue(name, { connection: this.connection, prefix: redis.prefix }))
    const queues = this.queues
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
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.queues.map((q) => q.close()))
    this.connection.disconnect()
  }
}
