import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { ExpressAdapter } from '@bull-board/express'
import type { Router } from 'express'
import type { QueueFactory } from '../../shared/platform/queue-factory.js'
import { QueueNames } from '../../shared/platform/queues.js'

export const QUEUE_DASHBOARD_PATH = '/admin/queues'

/**
 * bull-board's dashboard of every queue declared in shared/platform/queues.ts: jobs by state, their
 * data and failures, retry and clean. Mounted behind the admin token; its queues are the
 * factory's (closed with it).
 */
export function queueDashboard(queues: QueueFactory): Router {
  const serverAdapter = new ExpressAdapter()
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH)
  createBullBoard({ queues: Object.values(QueueNames).map((name) => new BullMQAdapter(queues.queue(name))), serverAdapter })
  return serverAdapter.getRouter() as Router
}
