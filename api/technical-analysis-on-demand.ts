import { Queue, QueueEvents } from 'bullmq'
import type { Config } from '../shared/config.js'
import type { Logger } from '../shared/logger.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobData, type IndicatorJobResult } from '../shared/queues.js'
import { createRedis, type Redis } from '../shared/redis.js'
import { ExpiringMemory } from './expiring-memory.js'
import { IndicatorJobWaiter } from './indicator-job-waiter.js'
import { PerKeyCoalescer } from './per-key-coalescer.js'

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

/** The BullMQ job id (and deduplication id) of a token's on-demand computation. */
export function recomputeTokenDeduplicationId(contractAddress: string): string {
  return `${IndicatorJobNames.recomputeToken}:${contractAddress}`
}

/**
 * Enqueues a `recompute-token` job on the indicators queue and waits up to `waitMs`.
 *
 * - One computation per token per process: concurrent requests for a token share one
 *   enqueue and one wait (PerKeyCoalescer), so a burst of requests costs one job and one
 *   pair of queue-event listeners in all, whatever the number of waiting requests.
 * - One job per token across API processes: BullMQ deduplication keyed by the token holds
 *   while a job is waiting or running (the add then returns that job's id), and a later
 *   request (after it finished) starts a fresh one, so a stale finished job is never
 *   mistaken for a new computation.
 * - Negative cache: a computation that wrote nothing (the token has no closed candles)
 *   is remembered for `negativeCacheMs` and given to later requests without a new job.
 *   A result written meanwhile (new candles) is still served: the route reads the cache first.
 *
 * The connections open on first use, so an API that never needs the on-demand path never
 * connects its queue.
 */
export class QueueOnDemandComputation implements OnDemandComputation {
  private opened?: {
    queue: Queue<RecomputeTokenData, IndicatorJobResult>
    events: QueueEvents
    waiter: IndicatorJobWaiter
    connections: Redis[]
  }
  private readonly inFlight = new PerKeyCoalescer<OnDemandOutcome>()
  private readonly nothingToCompute: ExpiringMemory<OnDemandOutcome>

  constructor(
    private readonly redis: Config['redis'],
    private readonly waitMs: number,
    private readonly logger: Logger,
    negativeCacheMs: number,
  ) {
    this.nothingToCompute = new ExpiringMemory<OnDemandOutcome>(negativeCacheMs)
  }

  compute(contractAddress: string): Promise<OnDemandOutcome> {
    const remembered = this.nothingToCompute.get(contractAddress)
    if (remembered !== undefined) return Promise.resolve(remembered)
    return this.inFlight.run(contractAddress, async () => {
      const outcome = await this.enqueueAndWait(contractAddress)
      if (outcome.state === 'finished' && outcome.result.written === 0) this.nothingToCompute.set(contractAddress, outcome)
      return outcome
    })
  }

  private async enqueueAndWait(contractAddress: string): Promise<OnDemandOutcome> {
    const { queue, waiter } = this.open()
    const job = await queue.add(
      IndicatorJobNames.recomputeToken,
      { contract_address: contractAddress },
      {
        deduplication: { id: recomputeTokenDeduplicationId(contractAddress) },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 24 * 3600, count: 1000 },
      },
    )
    if (this.waitMs === 0 || job.id === undefined) return { state: 'timed-out', waitedMs: 0 }
    const outcome = await waiter.wait(job.id, this.waitMs)
    return outcome ?? { state: 'timed-out', waitedMs: this.waitMs }
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
    const waiter = new IndicatorJobWaiter(queue, events)
    this.opened = { queue, events, waiter, connections: [queueConnection, eventsConnection] }
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
    opened.waiter.abortAll('the API is shutting down')
    await Promise.allSettled([opened.events.close(), opened.queue.close()])
    for (const connection of opened.connections) connection.disconnect()
  }
}
