import { Router } from 'express'
import type { Logger } from '../shared/platform/logger.js'
import { sendResult } from './envelope.js'
import { HttpError } from './http-error.js'
import type { Readiness } from './readiness.js'

export interface HealthDeps {
  readiness: () => Promise<Readiness>
  logger: Logger
}

/**
 * GET /health: 200 while the process serves requests (liveness).
 * GET /ready: 200 when the dependencies answer (see readiness.ts), otherwise 503 naming
 * what is down. The errors behind a 503 are logged when readiness changes, not per probe.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router()
  let wasReady: boolean | undefined

  router.get('/health', (_req, res) => {
    sendResult(res, { status: 'ok' })
  })

  router.get('/ready', async (_req, res) => {
    const readiness = await deps.readiness()
    if (readiness.ready !== wasReady) {
      if (readiness.ready) deps.logger.info('ready')
      else deps.logger.warn('not ready', { failures: readiness.failures })
      wasReady = readiness.ready
    }
    if (!readiness.ready) {
      throw new HttpError(503, `not ready: ${readiness.failures.map((f) => f.what).join(', ')}`)
    }
    sendResult(res, { status: 'ready' })
  })

  return router
}
