import { Router, type RequestHandler } from 'express'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Config } from '../../shared/platform/config.js'
import { DeadLetterReader } from '../../shared/dead-letters/dead-letters.js'
import type { Logger } from '../../shared/platform/logger.js'
import { QueueFactory } from '../../shared/platform/queue-factory.js'
import { QueueNames } from '../../shared/platform/queues.js'
import type { Tables } from '../../shared/storage/tables.js'
import { HttpError } from '../http-error.js'
import { adminAuth } from './admin-auth.js'
import { alertAdminRoutes } from './alert-admin-routes.js'
import { deadLetterRoutes } from './dead-letter-routes.js'
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './queue-dashboard.js'

export interface AdminDeps {
  config: Pick<Config, 'admin' | 'redis' | 'ingest'>
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
}

export interface Admin {
  /** Everything under /admin: mount it before the read API's method guard (it takes POST). */
  router: Router
  close(): Promise<void>
}

/**
 * The operator's endpoints: the queue dashboard (/admin/queues) and the dead letters
 * (/admin/dead-letters...). Off unless ADMIN_TOKEN is set: then every path under /admin
 * is a JSON 404, as if it did not exist. On: every request needs the token (JSON 401).
 */
export function createAdmin(deps: AdminDeps): Admin {
  const router = Router()
  const token = deps.config.admin.token
  if (token === undefined) {
    router.use('/admin', unknownAdminPath)
    return { router, close: async () => undefined }
  }
  // Fail fast, as the API's other queue users: a request is answered 503 rather than held while Redis is down.
  const queues = new QueueFactory(deps.config, deps.logger, { failFast: true })
  const dashboard = queueDashboard(queues)
  const redrives = queues.queue(QueueNames.deadLetterRedrive)
  const admin = Router()
  admin.use(adminAuth(token))
  admin.use(deadLetterRoutes({ reader: new DeadLetterReader(deps.clickhouse, deps.tables), redrives }))
  admin.use(alertAdminRoutes({ clickhouse: deps.clickhouse, tables: deps.tables, deliveries: queues.queue(QueueNames.alertDeliveries) }))
  admin.use(unknownAdminPath)
  router.use(QUEUE_DASHBOARD_PATH, adminAuth(token), dashboard)
  router.use('/admin', admin)
  return {
    router,
    close: () => queues.close(),
  }
}

/** As the read API's unknown-path 404, with the whole path (these routers are mounted under /admin). */
const unknownAdminPath: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, `No such endpoint: ${req.method} ${req.baseUrl}${req.path}`))
}
