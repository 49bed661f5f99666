import compression from 'compression'
import express, { type Express, type Router } from 'express'
import type { Logger } from '../shared/platform/logger.js'
import type { ReadAccess } from './access-control.js'
import { chartPageRouter } from './chart-page/chart-page-route.js'
import { docsRouter } from './contract/docs-routes.js'
import { errorResponder } from './error-handling.js'
import { methodGuard } from './method-guard.js'
import { requestLogging } from './request-logging.js'
import { requestMetrics } from './request-metrics.js'
import { routeTable } from './route-table.js'
import { structuredQueryGuard } from './structured-query-guard.js'

export interface RootAppParts {
  /** The read API (app.ts): its router runs here. */
  api: Express
  /** GET /health and GET /ready. */
  health: Router
  /** GET /metrics. */
  metrics: Router
  /** /admin/... (admin/admin-router.ts): before the method guard, since it takes POST. */
  admin: Router
  /** CORS, API keys and rate limits (access-control.ts). */
  access: ReadAccess
  logger: Logger
}

/**
 * What the HTTP server runs: the checks every request passes first (method, structured
 * query parameters), the operator's endpoints, then the read API, with the same JSON
 * errors throughout. CORS comes before the method guard (it answers an allowed origin's
 * preflight OPTIONS); compression (gzip or br, as the client accepts, above 1 KB) covers
 * every response; API keys and rate limits apply to the read API only, so health checks,
 * readiness probes and metrics scrapes never need a key or spend a budget.
 *
 * The read API's routes run in this app (its router, not the app mounted): a mounted
 * Express app switches the request's and response's prototypes on the way in (and out),
 * some 5-10% of a cached read's time. So the settings are this app's:
 * weak ETags on every body sent (the same tag whether it goes out gzip, br or as is), the
 * operator's endpoints and the errors answered here included.
 */
export function createRootApp(parts: RootAppParts): Express {
  const root = express()
  root.disable('x-powered-by')
  root.set('etag', 'weak')
  root.set('trust proxy', parts.access.trustProxy)
  root.use(requestLogging(parts.logger))
  root.use(requestMetrics)
  root.use(parts.admin)
  root.use(parts.access.cors)
  root.use(methodGuard)
  root.use(structuredQueryGuard)
  root.use(compression())
  // The chart page's files, like the docs, need no API key and spend no rate-limit budget;
  // the API calls it makes do.
  root.use(routeTable(parts.health, parts.metrics, docsRouter(), chartPageRouter()))
  root.use(parts.access.guard)
  root.use(parts.api.router)
  root.use(errorResponder(parts.logger))
  return root
}
