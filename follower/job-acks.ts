import { Job, type Queue } from 'bullmq'

/**
 * Waits until every job, just added, is completed (acknowledged: its rows are stored). A
 * job the queue no longer holds was completed and removed by the queue's retention; a
 * failed one throws with its reason. (Not for jobs a previous run may never have sent:
 * see ChainFollower.start.)
 */
export async function waitForJobs(queue: Queue, jobIds: readonly string[], stopping: () => boolean = () => false): Promise<void> {
  for (const id of jobIds) {
    for (;;) {
      const state = await queue.getJobState(id)
      if (state === 'completed' || state === 'unknown') break
      if (state === 'failed') {
        const job = await Job.fromId(queue, id)
        throw new Error(`ingest job ${id} failed: ${job?.failedReason ?? 'unknown reason'}`)
      }
      if (stopping()) throw new FollowerStopped()
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

export class FollowerStopped extends Error {
  constructor() {
    super('the follower is stopping')
  }
}
