import type { Queue, QueueEvents } from 'bullmq'
import type { IndicatorJobResult } from '../shared/platform/queues.js'

export type JobOutcome = { state: 'finished'; result: IndicatorJobResult } | { state: 'failed'; reason: string }

/** A job's return value as BullMQ hands it over (parsed JSON, or its text), checked. */
export function toIndicatorJobResult(value: unknown): IndicatorJobResult {
  const parsed: unknown = typeof value === 'string' ? safeParse(value) : value
  if (typeof parsed === 'object' && parsed !== null && 'written' in parsed && typeof parsed.written === 'number') {
    const reason = 'reason' in parsed && typeof parsed.reason === 'string' ? parsed.reason : undefined
    return reason === undefined ? { written: parsed.written } : { written: parsed.written, reason }
  }
  return { written: 0, reason: 'the computation returned no readable result' }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Waits for indicator jobs to finish with one 'completed' and one 'failed' listener on
 * the queue events for all of them (BullMQ's job.waitUntilFinished adds listeners per
 * waiter, on the queue events and on the queue: past ten concurrent waiters Node warns
 * of a leak). Waiters of one job id share its outcome.
 */
export class IndicatorJobWaiter {
  private readonly waiters = new Map<string, Array<(outcome: JobOutcome) => void>>()

  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
  ) {
    events.on('completed', (args) => this.settle(args.jobId, { state: 'finished', result: toIndicatorJobResult(args.returnvalue) }))
    events.on('failed', (args) => this.settle(args.jobId, { state: 'failed', reason: args.failedReason }))
  }

  /** The job's outcome, or null if it has not finished within `timeoutMs`. */
  wait(jobId: string, timeoutMs: number): Promise<JobOutcome | null> {
    return new Promise<JobOutcome | null>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const done = (outcome: JobOutcome | null) => {
        clearTimeout(timer)
        this.remove(jobId, done)
        resolve(outcome)
      }
      timer = setTimeout(() => done(null), timeoutMs)
      const list = this.waiters.get(jobId) ?? []
      list.push(done)
      this.waiters.set(jobId, list)
      // The job may have finished before the listener was in place: look once, after the
      // queue events are listening (so nothing can fall between the look and the events).
      void this.finishedAlready(jobId).then(
        (outcome) => {
          if (outcome !== null) this.settle(jobId, outcome)
        },
        () => undefined,
      )
    })
  }

  /** Ends every wait (the API is closing). */
  abortAll(reason: string): void {
    for (const jobId of [...this.waiters.keys()]) this.settle(jobId, { state: 'failed', reason })
  }

  private async finishedAlready(jobId: string): Promise<JobOutcome | null> {
    await this.events.waitUntilReady()
    // The state first, then the finished job: a job read before it completes carries no
    // return value yet, even if its state, asked a moment later, says completed.
    const state = await this.queue.getJobState(jobId)
    if (state !== 'completed' && state !== 'failed') {
      return state === 'unknown' ? { state: 'failed', reason: `job ${jobId} is no longer in the queue` } : null
    }
    const job = await this.queue.getJob(jobId)
    if (job === undefined) return { state: 'failed', reason: `job ${jobId} is no longer in the queue` }
    if (state === 'completed') return { state: 'finished', result: toIndicatorJobResult(job.returnvalue) }
    return { state: 'failed', reason: job.failedReason }
  }

  private settle(jobId: string, outcome: JobOutcome): void {
    const list = this.waiters.get(jobId)
    if (list === undefined) return
    this.waiters.delete(jobId)
    for (const waiter of list) waiter(outcome)
  }

  private remove(jobId: string, waiter: (outcome: JobOutcome | null) => void): void {
    const list = this.waiters.get(jobId)
    if (list === undefined) return
    const rest = list.filter((w) => w !== waiter)
    if (rest.length === 0) this.waiters.delete(jobId)
    else this.waiters.set(jobId, rest)
  }
}
