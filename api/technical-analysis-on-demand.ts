import type { QueueEvents } from 'bullmq'
import type { Config } from '../shared/platform/config.js'
import type { Logger } from '../shared/platform/logger.js'
import { QueueFactory, type TypedQueue } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobResult } from '../shared/platform/queues.js'
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
    queue: TypedQueue<typeof QueueNames.indicators>
    events: QueueEvents
    waiter: IndicatorJobWaiter
    factory: QueueFactory
  }
  private readonly inFlight = new PerKeyCoalescer<OnDemandOutcome>()
  private readonly nothingToCompute: ExpiringMemory<OnDemandOutcome>

  constructor(
    private readonly config: Pick<Config, 'redis' | 'ingest'>,
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
      // The queue's attempts and backoff, as every indicator job: a retry that
      // lands within TA_ON_DEMAND_WAIT_MS still answers this client, and later ones get the result.
      { deduplication: { id: recomputeTokenDeduplicationId(contractAddress) } },
    )
    if (this.waitMs === 0 || job.id === undefined) return { state: 'timed-out', waitedMs: 0 }
    const outcome = await waiter.wait(job.id, this.waitMs)
    return outcome ?? { state: 'timed-out', waitedMs: this.waitMs }
  }

  private open() {
    if (this.opened) return this.opened
    // Fail fast: a request while Redis is down is answered at once instead of held.
    const factory = new QueueFactory(this.config, this.logger, { failFast: true })
    const queue = factory.queue(QueueNames.indicators)
    const events = factory.events(QueueNames.indicators)
    const waiter = new IndicatorJobWaiter(queue, events)
    this.opened = { queue, events, waiter, factory }
    return this.opened
  }

  async close(): Promise<void> {
    const opened = this.opened
    this.opened = undefined
    if (!opened) return
    opened.waiter.abortAll('the API is shutting down')
    await opened.factory.close()
  }
}
