import type { RequestHandler } from 'express'
import { httpRequestDuration } from '../shared/platform/metrics.js'

/**
 * Times every request into http_request_duration_seconds, labelled by the route pattern
 * that answered it (`/tokens/:contract_address`, never the concrete path, so the number
 * of series stays bounded) or `unmatched`.
 */
export const requestMetrics: RequestHandler = (req, res, next) => {
  const started = performance.now()
  res.on('finish', () => {
    const route = req.route === undefined ? 'unmatched' : `${req.baseUrl}${String((req.route as { path: unknown }).path)}`
    httpRequestDuration.observe({ route, method: req.method, status: String(res.statusCode) }, (performance.now() - started) / 1000)
  })
  next()
}
