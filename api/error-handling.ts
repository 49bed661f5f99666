import type { ErrorRequestHandler, RequestHandler } from 'express'
import type { Logger } from '../shared/platform/logger.js'
import { HttpError, SERVICE_UNAVAILABLE_MESSAGE } from './http-error.js'
import { isRedisConnectionError } from '../shared/platform/redis-connection-errors.js'

/** Any path no route matched: a JSON 404, never Express's HTML page. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, `No such endpoint: ${req.method} ${req.path}`))
}

/**
 * Errors Express itself raises for a bad request carry a 4xx `status`: body-parser's
 * (with a `type`, e.g. entity.parse.failed) and the router's for an undecodable path.
 */
interface ClientError {
  status: number
  type?: unknown
  message: string
}

function isClientError(err: unknown): err is ClientError {
  if (typeof err !== 'object' || err === null) return false
  const e = err as Record<string, unknown>
  return typeof e.status === 'number' && e.status >= 400 && e.status < 500 && typeof e.message === 'string'
}

function clientErrorMessage(err: ClientError): string {
  if (err.type === 'entity.parse.failed') return `The request body is not valid JSON: ${err.message}`
  if (err instanceof URIError) return `The path is not valid percent-encoding: ${err.message}`
  return `The request could not be read: ${err.message}`
}

/** A deliberate answer (a 4xx, a 503) keeps its status; a 500 is a failure whose cause may be an outage. */
function isDeliberateAnswer(err: unknown): err is HttpError {
  return err instanceof HttpError && err.status !== 500
}

/**
 * The last middleware: every error becomes `{"status":"error","message":...}`.
 * Unexpected errors are logged with their details and answered with a generic 500,
 * so no stack trace or internal detail leaks to a client. A failure because Redis is
 * unreachable (even wrapped in a route's 500, as message or `cause`) is a 503
 * `service unavailable`; it is not logged per request: the connection's own listener
 * logs each outage once (api-server.ts).
 */
export function errorResponder(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let status: number
    let message: string
    if (!isDeliberateAnswer(err) && isRedisConnectionError(err)) {
      status = 503
      message = SERVICE_UNAVAILABLE_MESSAGE
      logger.debug('request failed: redis unavailable', { method: req.method, path: req.path, err })
    } else if (err instanceof HttpError) {
      status = err.status
      message = err.message
    } else if (isClientError(err)) {
      status = 400
      message = clientErrorMessage(err)
    } else {
      status = 500
      message = 'Internal error while handling the request'
      logger.error('request failed', { method: req.method, path: req.path, err })
    }
    if (res.headersSent) {
      res.end()
      return
    }
    res.status(status).json({ status: 'error', message })
  }
}
