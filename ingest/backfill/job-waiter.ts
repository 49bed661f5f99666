import type { Queue } from 'bullmq'
import type { IngestJobResult } from '../../shared/queues.js'

export interface WaitTotals {
  finished: number
  accepted: number
  rejected: number
  /** Jobs that exhausted their attempts, with BullMQ's failure reason. */
  failed: Array<{ id: string; reason: string }>
  /** Jobs already removed from Redis when looked at (their counts are unknown). */
  vanished: number
}

/**
 * Waits for jobs by polling their state by id (no event subscription to miss), oldest
 * first; only the first `window` unfinished jobs are looked at on each round, since
 * workers take jobs roughly in order.
 */
export class JobWaiter {
  readonly totals: WaitTotals = { finished: 0, accepted: 0, rejected: 0, failed: [], vanished: 0 }
  private pending: string[]

  constructor(
    private readonly queue: Queue,
    jobIds: string[],
    private readonly pollMs = 250,
    private readonly window = 200,
  ) {
    this.pending = [...jobIds]
  }

  get remaining(): number {
    return this.pending.length
  }

  async waitAll(): Promise<WaitTotals> {
    while (this.pending.length > 0) {
      await this.poll()
      if (this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, this.pollMs))
    }
    return this.totals
  }

  private async poll(): Promise<void> {
    const looked = this.pending.slice(0, this.window)
    const done = new Set<string>()
    await Promise.all(
      looked.map(async (id) => {
        if (await this.settle(id)) done.add(id)
      }),
    )
    if (done.size > 0) this.pending = this.pending.filter((id) => !done.has(id))
  }

  /** Records the job's outcome if it is finished; returns whether it is. */
  private async settle(id: string): Promise<boolean> {
    // The state first: fetching a job that is still waiting would pull its whole payload.
    const state = await this.queue.getJobState(id)
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false
    const job = state === 'unknown' ? undefined : await this.queue.getJob(id)
    if (!job) {
      this.totals.finished++
      this.totals.vanished++
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
