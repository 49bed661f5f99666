import type { RequestHandler } from 'express'
import { ALLOWED_METHODS } from './method-guard.js'

/** Headers a browser page may read beyond the CORS-safelisted ones. */
export const EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
  'X-Total-Count',
  'X-Limit',
  'X-Offset',
  'X-Next-Cursor',
  'X-Total-Value-Usd',
] as const

/** Headers a page may send: its key, a conditional request, a JSON body (GET /technical-analysis). */
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'X-API-Key', 'If-None-Match', 'Content-Type', 'X-Request-Id']

const PREFLIGHT_MAX_AGE_S = 600

/**
 * CORS_ORIGINS: which origins a browser page (a notebook, a dashboard) may read the API
 * from. Off (the default): no CORS header is sent, and OPTIONS stays the method guard's
 * JSON 405/404. `*`: any origin. A list: those origins exactly, echoed back with
 * `Vary: Origin`.
 *
 * A preflight (OPTIONS with Origin and Access-Control-Request-Method) from an allowed
 * origin asking for GET or HEAD is answered here, 204, on any path (the request that
 * follows then gets its own JSON answer, a 404 included). Any other OPTIONS request
 * (no Origin, a refused origin, another method) goes on to the method guard. Responses
 * to an allowed origin carry the CORS headers whatever their status, so a page can read
 * a 401 or 429 too. Never credentials: keys travel in headers, not cookies.
 */
export function corsPolicy(origins: readonly string[]): RequestHandler {
  if (origins.length === 0) return (_req, _res, next) => next()
  const anyOrigin = origins.includes('*')
  const allowed: ReadonlySet<string> = new Set(origins)
  const allowedMethods: ReadonlySet<string> = new Set(ALLOWED_METHODS)

  return (req, res, next) => {
    if (!anyOrigin) res.vary('Origin')
    const origin = req.get('origin')
    if (origin === undefined || !(anyOrigin || allowed.has(origin))) {
      next()
      return
    }
    res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin)
    const requestedMethod = req.get('access-control-request-method')
    if (req.method === 'OPTIONS' && requestedMethod !== undefined) {
      if (!allowedMethods.has(requestedMethod.toUpperCase())) {
        next()
        return
      }
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '))
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS.join(', '))
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S))
      res.status(204).end()
      return
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '))
    next()
  }
}
