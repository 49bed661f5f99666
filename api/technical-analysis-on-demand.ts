import { Queue, QueueEvents } from 'bullmq'
import type { Config } from '../shared/config.js'
import type { Logger } from '../shared/logger.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobData, type IndicatorJobResult } from '../shared/queues.js'
import { createRedis, type Redis } from '../shared/redis.js'

export type OnDemandOutcome =
  | { state: 'finished'; result: IndicatorJobResult }
  | { state: 'failed'; reason: string }
  | { state: 'timed-out'; waitedMs: number }

export interface OnDemandComputation {
  /** Asks the indicator engine to compute one token now and waits (bounded) for it. */
  compute(contractAddress: string): Promise<OnDemandOutcome>
  close(): Promise<void>
}

type RecomputeTokenData = IndicatorJobData['recompute-token']

/**
 * Enqueues a `recompute-token` job on the indicators queue and waits up to `waitMs`.
 * Concurrent requests for one token share one job: BullMQ deduplication keyed by the
 * token holds while a job is waiting or running, and a later request (after it
 * finished) starts a fresh one, so a stale finished job is never mistaken for a new
 * computation. The connections open on first use, so an API that never needs the
 * on-demand path never connects its queue.
 */
export class QueueOnDemandComputation implements OnDemandComputation {
  private opened?: { queue: Queue<RecomputeTokenData, IndicatorJobResult>; events: QueueEvents; connections: Redis[] }

  constructor(
    private readonly redis: Config['redis'],
    private readonly waitMs: number,
    private readonly logger: Logger,
  ) {}

  async compute(contractAddress: string): Promise<OnDemandOutcome> {
    const { queue, events } = this.open()
    const job = await queue.add(
      IndicatorJobNames.recomputeToken,
      { contract_address: contractAddress },
      {
        deduplication: { id: `${IndicatorJobNames.recomputeToken}:${contractAddress}` },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 24 * 3600, count: 1000 },
      },
    )
    if (this.waitMs === 0) return { state: 'timed-out', waitedMs: 0 }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<OnDemandOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ state: 'timed-out', waitedMs: this.waitMs }), this.waitMs)
    })
    // BullMQ's own ttl (a little later than ours) removes its listeners; its rejection then is expected.
    const finished = job.waitUntilFinished(events, this.waitMs + 1000).then(
      (result: IndicatorJobResult): OnDemandOutcome => ({ state: 'finished', result }),
      (err: unknown): OnDemandOutcome => ({ state: 'failed', reason: err instanceof Error ? err.message : String(err) }),
    )
    try {
      return await Promise.race([finished, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  private open() {
    if (this.opened) return this.opened
    const queueConnection = this.watch(createRedis(this.redis.url, 'commands'))
    const eventsConnection = this.watch(createRedis(this.redis.url, 'bullmq'))
    const queue = new Queue<RecomputeTokenData, IndicatorJobResult>(QueueNames.indicators, {
      connection: queueConnection,
      prefix: this.redis.prefix,
    })
    const events = new QueueEvents(QueueNames.indicators, { connection: eventsConnection, prefix: this.redis.prefix })
    queue.on('error', (err) => this.logger.warn('indicators queue error', { err }))
    events.on('error', (err) => this.logger.warn('indicators queue events error', { err }))
    this.opened = { queue, events, connections: [queueConnection, eventsConnection] }
    return this.opened
  }

  private watch(connection: Redis): Redis {
    connection.on('error', (err: Error) => this.logger.debug('redis connection error', { err }))
    return connection
  }

  async close(): Promise<void> {
    const opened = this.opened
    this.opened = undefined
    if (!opened) return
    await Promise.allSettled([opened.events.close(), opened.queue.close()])
    for (const connection of opened.connections) connection.disconnect()
  }
}
