import { Queue } from 'bullmq'
import { QueueNames } from '../../shared/platform/queues.js'
import { createRedis, type Redis } from '../../shared/platform/redis.js'
import { Prng } from '../../ingest/sample-data/prng.js'
import type { PersistentRedis } from './persistent-redis.js'
import type { ServiceProcess } from './service-process.js'

/**
 * Kills the service with SIGKILL at random moments while a backfill runs (and starts it
 * again at once), and restarts Redis at given points of the run's progress. Progress is
 * the number of completed ingest jobs, read from Redis.
 */
export class FaultInjector {
  kills = 0
  /** Kills that landed before the service had started every role. */
  startupKills = 0
  redisGracefulRestarts = 0
  redisDataLosses = 0
  /** Ingest jobs not yet finished when Redis lost its data (the backfill must then say what it cannot vouch for). */
  pendingAtDataLoss = 0
  private readonly prng: Prng
  private readonly connection: Redis
  private readonly queue: Queue

  constructor(
    private readonly service: ServiceProcess,
    private readonly redis: PersistentRedis,
    redisPrefix: string,
    seed: number,
    private readonly log: (line: string) => void,
  ) {
    this.prng = new Prng(seed)
    this.connection = createRedis(redis.url, 'bullmq')
    this.connection.on('error', () => undefined)
    this.queue = new Queue(QueueNames.ingest, { connection: this.connection, prefix: redisPrefix })
  }

  async completedJobs(): Promise<number> {
    return (await this.queue.getJobCounts('completed')).completed ?? 0
  }

  /**
   * Until `finished()` or `maxKills` kills: wait until the service is up and has completed
   * a random 1–`progressJobs` jobs since (so every kill cycle makes progress, and the
   * moment falls anywhere in a batch's life), then a random 0–2.5 s, then SIGKILL and start
   * again. Every fifth kill lands instead at a random moment of start-up.
   */
  async killWhileRunning(finished: () => boolean, maxKills: number, progressJobs = 1): Promise<void> {
    while (!finished() && this.kills < maxKills) {
      if (this.kills % 5 === 4) {
        if (!this.service.running) this.service.spawn()
        await sleep(this.prng.int(200, 4_000))
        if (finished()) break
        if (!this.service.ready) this.startupKills++
        await this.killAndRestart('during start-up')
        continue
      }
      try {
        await this.service.waitReady(180_000)
      } catch (err) {
        this.log(`service not ready: ${err instanceof Error ? err.message.slice(0, 2_000) : String(err)}`)
        if (!this.service.running) this.service.spawn()
        continue
      }
      const base = await this.completedJobs()
      const wanted = this.prng.int(1, Math.max(1, progressJobs))
      const deadline = Date.now() + 300_000
      // "Not the same count": after Redis lost its data the count starts again from zero.
      const progressed = async () => {
        const now = await this.completedJobs()
        return now < base || now >= base + wanted
      }
      while (!finished() && !(await progressed()) && Date.now() < deadline) await sleep(100)
      await sleep(this.prng.int(0, 2_500))
      if (finished()) break
      await this.killAndRestart('while working')
    }
  }

  /** Gracefully restarts Redis once `gracefulAt` jobs completed, and makes it lose its data at `lossAt`. */
  async restartRedisAt(finished: () => boolean, gracefulAt: number, lossAt: number): Promise<void> {
    await this.until(finished, gracefulAt)
    if (finished()) return
    this.log(`redis: graceful restart (AOF everysec kept) at ${await this.completedJobs()} completed jobs`)
    await this.redis.restartGracefully()
    this.redisGracefulRestarts++
    await this.until(finished, lossAt)
    if (finished()) return
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children')
    this.pendingAtDataLoss = Object.values(counts).reduce((sum, n) => sum + n, 0)
    this.log(`redis: restart losing its data at ${await this.completedJobs()} completed jobs, ${this.pendingAtDataLoss} unfinished`)
    await this.redis.restartLosingData()
    this.redisDataLosses++
  }

  async close(): Promise<void> {
    await this.queue.close()
    this.connection.disconnect()
  }

  private async until(finished: () => boolean, completed: number): Promise<void> {
    while (!finished() && (await this.completedJobs()) < completed) await sleep(200)
  }

  private async killAndRestart(when: string): Promise<void> {
    await this.service.kill()
    this.kills++
    this.log(`kill ${this.kills} (${when}) at ${await this.completedJobs()} completed jobs`)
    this.service.spawn()
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
