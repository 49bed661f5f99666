import { Queue, QueueEvents, Worker, type DefaultJobOptions, type Processor, type WorkerOptions } from 'bullmq'
import type { Config } from './config.js'
import type { Logger } from './logger.js'
import {
  ingestFailedJobRetention,
  QueueNames,
  type IndicatorJobData,
  type IndicatorJobName,
  type IndicatorJobResult,
  type IngestJobData,
  type IngestJobName,
  type IngestJobResult,
  type DeadLetterRedriveJobData,
  type DeadLetterRedriveResult,
  type QueueName,
} from './queues.js'
import { createRedis, type Redis } from './redis.js'
import { isRedisConnectionError } from './redis-connection-errors.js'

/**
 * The one way to open a BullMQ queue, worker or event stream: every role, command and
 * the API go through a QueueFactory, so a queue's name, key prefix, default job options
 * (attempts, backoff, retention) and connection policy are decided here and nowhere else.
 *
 * Connections: the factory's queues share one connection (a Queue only sends commands);
 * each worker and each event stream gets its own (they block on Redis). Every connection
 * follows shared/platform/redis.ts's policy: an outage is logged once per process, and the errors
 * BullMQ re-emits on the queue, worker or events for it are not logged again. close()
 * closes everything the factory opened, then its connections.
 */

export type IndicatorJobPayload = IndicatorJobData[IndicatorJobName]

/** Each queue's job data, result and job names. A queue not listed here is untyped. */
export interface QueueJobTypes {
  [QueueNames.ingest]: { data: IngestJobData; result: IngestJobResult; name: IngestJobName }
  [QueueNames.indicators]: { data: IndicatorJobPayload; result: IndicatorJobResult; name: IndicatorJobName }
  [QueueNames.deadLetterRedrive]: { data: DeadLetterRedriveJobData; result: DeadLetterRedriveResult; name: 'redrive' }
}
type JobTypes<N extends QueueName> = N extends keyof QueueJobTypes ? QueueJobTypes[N] : { data: unknown; result: unknown; name: string }

export type TypedQueue<N extends QueueName> = Queue<JobTypes<N>['data'], JobTypes<N>['result'], JobTypes<N>['name']>
export type TypedWorker<N extends QueueName> = Worker<JobTypes<N>['data'], JobTypes<N>['result'], JobTypes<N>['name']>
export type TypedProcessor<N extends QueueName> = Processor<JobTypes<N>['data'], JobTypes<N>['result'], JobTypes<N>['name']>

/** Finished jobs are kept a while (a waiting client reads the result), then dropped: never kept without bound. */
export const DEFAULT_JOB_RETENTION = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
} as const satisfies DefaultJobOptions

/** The options every job of a queue gets unless its add() says otherwise. */
export function defaultJobOptions(name: QueueName, ingest: Config['ingest']): DefaultJobOptions {
  switch (name) {
    case QueueNames.ingest:
      return {
        attempts: ingest.maxAttempts,
        backoff: { type: 'exponential', delay: 500 },
        // `backfill --wait` reads the outcome of completed jobs; failed ones keep their records for inspection.
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: ingestFailedJobRetention(ingest.failedJobs),
      }
    case QueueNames.indicators:
      return { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, ...DEFAULT_JOB_RETENTION }
    case QueueNames.deadLetterRedrive:
      // Not retried (re-runnable by hand: only pending dead letters are taken); outcomes kept a week for GET /admin/dead-letters/redrives/:id.
      return { attempts: 1, removeOnComplete: { age: 7 * 24 * 3600, count: 1000 }, removeOnFail: { age: 7 * 24 * 3600, count: 1000 } }
    default:
      return { ...DEFAULT_JOB_RETENTION }
  }
}

/** The prefix of every queue key: REDIS_PREFIX (see docs/scale-out.md for Redis Cluster). */
export function queuePrefix(redis: Config['redis']): string {
  return redis.prefix
}

/** Worker settings a role may choose; the connection and prefix are the factory's. */
export type WorkerSettings = Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>

export interface QueueFactoryOptions {
  /**
   * The queues' shared connection gives up on a command after two reconnection attempts
   * instead of waiting for Redis: for request/response users (the API answers 503 rather
   * than hold a request). Default: wait, as producers and workers do.
   */
  failFast?: boolean
}

/** How long a connection that never became ready is given to end when the factory closes. */
const END_WAIT_MS = 200

export class QueueFactory {
  private shared?: Redis
  private readonly connections: Redis[] = []
  private readonly opened: Array<{ close(): Promise<void> }> = []

  /** Without a logger nothing is logged (commands print their own outcome). */
  constructor(
    private readonly config: Pick<Config, 'redis' | 'ingest'>,
    private readonly logger?: Logger,
    private readonly options: QueueFactoryOptions = {},
  ) {}

  /** A queue for adding jobs and reading their state, with the queue's default job options. */
  queue<N extends QueueName>(name: N): TypedQueue<N> {
    this.shared ??= this.connect(this.options.failFast ? 'commands' : 'bullmq')
    const queue: TypedQueue<N> = new Queue(name, {
      connection: this.shared,
      prefix: queuePrefix(this.config.redis),
      defaultJobOptions: defaultJobOptions(name, this.config.ingest),
    })
    return this.track(queue, `${name} queue`)
  }

  /** A worker processing the queue's jobs. */
  worker<N extends QueueName>(name: N, processor: TypedProcessor<N>, settings: WorkerSettings = {}): TypedWorker<N> {
    const worker: TypedWorker<N> = new Worker(name, processor, {
      ...settings,
      connection: this.connect(),
      prefix: queuePrefix(this.config.redis),
    })
    return this.track(worker, `${name} worker`)
  }

  /** The queue's event stream (completed, failed, …), for waiting on jobs. */
  events(name: QueueName): QueueEvents {
    const events = new QueueEvents(name, { connection: this.connect(), prefix: queuePrefix(this.config.redis) })
    return this.track(events, `${name} events`)
  }

  /** Closes every queue, worker and event stream opened here (a worker closes after its jobs in hand), then the connections. */
  async close(): Promise<void> {
    const opened = this.opened.splice(0)
    await this.endConnectionsNeverReady()
    await Promise.allSettled(opened.map((o) => o.close()))
    for (const connection of this.connections.splice(0)) connection.disconnect()
    this.shared = undefined
  }

  /**
   * Ends the connections that never became ready (Redis away) before their queues are
   * closed. BullMQ's start-up of a queue waits for its connection; closing the queue removes
   * the listeners that start-up reports its failure to, so a connection ending afterwards
   * (its attempt under way when it is disconnected) turns that failure into an unhandled
   * rejection, which stops the service. Ended first, the failure reaches the queue's error
   * listener (track()).
   */
  private async endConnectionsNeverReady(): Promise<void> {
    const down = this.connections.filter((c) => c.status !== 'ready' && c.status !== 'end')
    if (down.length === 0) return
    await Promise.all(
      down.map(
        (c) =>
          new Promise<void>((resolve) => {
            // In its wait between attempts a connection ends without an 'end' event.
            const timer = setTimeout(resolve, END_WAIT_MS)
            c.once('end', () => {
              clearTimeout(timer)
              resolve()
            })
            c.disconnect()
          }),
      ),
    )
    // The start-ups' failures travel through a few promise steps after 'end'.
    await new Promise((resolve) => setImmediate(resolve))
  }

  private connect(purpose: 'bullmq' | 'commands' = 'bullmq'): Redis {
    const connection = createRedis(this.config.redis.url, purpose, this.logger)
    if (!this.logger) connection.on('error', () => undefined)
    this.connections.push(connection)
    return connection
  }

  private track<T extends { close(): Promise<void>; on(event: 'error', listener: (err: Error) => void): unknown }>(opened: T, what: string): T {
    // BullMQ re-emits its connection's errors here: the connection policy has logged the
    // outage already. Anything else (a script error, a failing processor's bookkeeping) is logged.
    opened.on('error', (err: Error) => {
      if (!isConnectionError(err)) this.logger?.warn(`${what} error`, { err })
    })
    this.opened.push(opened)
    return opened
  }
}

/** Errors of a connection that is down: the socket's own (refused, reset, timed out…), or a command's that gave up on it. */
function isConnectionError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code
  if (code !== undefined && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH)$/.test(code)) return true
  return isRedisConnectionError(err)
}
