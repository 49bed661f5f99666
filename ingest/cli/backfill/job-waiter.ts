import type { Queue } from 'bullmq'
import type { IngestJobResult } from '../../../shared/platform/queues.js'
import type { EnqueuedJob } from './batch-enqueuer.js'

export interface WaitTotals {
  finished: number
  accepted: number
  rejected: number
  /** Jobs that exhausted their attempts, with BullMQ's failure reason. */
  failed: Array<{ id: string; reason: string }>
  /** Jobs gone from Redis when looked at (their outcome is unknown: see JobWaiter.lost). */
  vanished: number
}

/**
 * Waits for jobs by polling their state by id (no event subscription to miss), oldest
 * first; only the first `window` unfinished jobs are looked at on each round, since
 * workers take jobs roughly in order. Each job id counts once, however often it is given.
 * A job gone from Redis before its outcome was read (Redis lost its data, or it was
 * removed) is listed in `lost` with its records: nobody can vouch for them.
 */
export class JobWaiter {
  readonly totals: WaitTotals = { finished: 0, accepted: 0, rejected: 0, failed: [], vanished: 0 }
  /** Jobs that vanished before their outcome was read, in the order they were found gone. */
  readonly lost: EnqueuedJob[] = []
  private pending: EnqueuedJob[] = []
  private readonly known = new Set<string>()
  private stopped = false

  constructor(
    private readonly queue: Queue,
    jobs: ReadonlyArray<string | EnqueuedJob> = [],
    private readonly pollMs = 250,
    private readonly window = 200,
  ) {
    for (const job of jobs) this.track(job)
  }

  /** Adds a job to wait for (a bare id when its records and source are not known). */
  track(job: string | EnqueuedJob): void {
    const entry = typeof job === 'string' ? { id: job, records: 0, source: '' } : job
    if (this.known.has(entry.id)) return
    this.known.add(entry.id)
    this.pending.push(entry)
  }

  get remaining(): number {
    return this.pending.length
  }

  /** Records in the jobs that vanished. */
  get lostRecords(): number {
    return this.lost.reduce((sum, job) => sum + job.records, 0)
  }

  /**
   * Polls until every job tracked has finished and `more()` says no more will be tracked
   * (while the backfill is still enqueueing, it polls every `pollMs` × 4), or until stop().
   */
  async waitAll(more: () => boolean = () => false): Promise<WaitTotals> {
    while (!this.stopped && (this.pending.length > 0 || more())) {
      if (this.pending.length > 0) await this.poll()
      if (this.pending.length > 0 || more()) await new Promise((resolve) => setTimeout(resolve, more() ? this.pollMs * 4 : this.pollMs))
    }
    return this.totals
  }

  stop(): void {
    this.stopped = true
  }

  private async poll(): Promise<void> {
    const looked = this.pending.slice(0, this.window)
    const done = new Set<string>()
    await Promise.all(
      looked.map(async (job) => {
        if (await this.settle(job)) done.add(job.id)
      }),
    )
    if (done.size > 0) this.pending = this.pending.filter((job) => !done.has(job.id))
  }

  /** Records the job's outcome if it is finished (or gone); returns whether it is. */
  private async settle(tracked: EnqueuedJob): Promise<boolean> {
    const { id } = tracked
    // The state first: fetching a job that is still waiting would pull its whole payload.
    const state = await this.queue.getJobState(id)
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false
    const job = state === 'unknown' ? undefined : await this.queue.getJob(id)
    if (!job) {
      this.totals.finished++
      this.totals.vanished++
      this.lost.push(tracked)
      return true
    }
    if (state === 'failed') {
      this.totals.failed.push({ id, reason: job.failedReason ?? 'unknown reason' })
    } else {
      const result = job.returnvalue as Partial<IngestJobResult> | null
      this.totals.accepted += Number(result?.accepted ?? 0)
      this.totals.rejected += Number(result?.rejected ?? 0)
    }
    this.totals.finished++
    return true
  }
}
