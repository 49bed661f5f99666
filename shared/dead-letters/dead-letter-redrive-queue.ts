import type { TypedQueue } from '../platform/queue-factory.js'
import type { DeadLetterRedriveJobData, DeadLetterRedriveResult, QueueNames } from '../platform/queues.js'

/**
 * The queue of dead-letter re-drives (opened through the QueueFactory; run by the ingest
 * role's redrive worker): the admin API adds to it, so a re-drive can be asked for while
 * the running service holds the embedded store.
 */
export type DeadLetterRedriveQueue = TypedQueue<typeof QueueNames.deadLetterRedrive>

/** What is told about a re-drive job: its state, and its result once completed (or why it failed). */
export interface RedriveJobStatus {
  id: string
  state: string
  selection: DeadLetterRedriveJobData
  result: DeadLetterRedriveResult | null
  failed_reason: string | null
}

export async function redriveJobStatus(queue: DeadLetterRedriveQueue, id: string): Promise<RedriveJobStatus | undefined> {
  // The state first: a job read before it completes has no return value yet, even if its
  // state, read after, says completed. One read after the state has it.
  const state = await queue.getJobState(id)
  const job = await queue.getJob(id)
  if (!job) return undefined
  return {
    id,
    state,
    selection: job.data,
    result: state === 'completed' ? (job.returnvalue ?? null) : null,
    failed_reason: state === 'failed' ? (job.failedReason ?? null) : null,
  }
}
