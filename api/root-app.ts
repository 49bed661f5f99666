import express, { type Express, type Router } from 'express'
import type { Logger } from '../shared/logger.js'
import { errorResponder } from './error-handling.js'
import { methodGuard } from './method-guard.js'
import { requestLogging } from './request-logging.js'
import { requestMetrics } from './request-metrics.js'
import { structuredQueryGuard } from './structured-query-guard.js'

export interface RootAppParts {
  /** The read API (app.ts). */
  api: Express
  /** GET /health and GET /ready. */
  health: Router
  /** GET /metrics. */
  metrics: Router
  logger: Logger
}

/**
 * What the HTTP server runs: the checks every request passes first (method, structured
 * query parameters), the operator's endpoints, then the read API, with the same JSON
 * errors throughout.
 */
export function createRootApp(parts: RootAppParts): Express {
  const root = express()
  root.disable('x-powered-by')
  root.set('etag', false)
  root.use(requestLogging(parts.logger))
  root.use(requestMetrics)
  root.use(methodGuard)
  root.use(structuredQueryGuard)
  root.use(parts.health)
  root.use(parts.metrics)
  root.use(parts.api)
  root.use(errorResponder(parts.logger))
  return root
}
