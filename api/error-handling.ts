import type { ErrorRequestHandler, RequestHandler } from 'express'
import type { Logger } from '../shared/logger.js'
import { HttpError } from './http-error.js'

/** Any path no route matched: a JSON 404, never Express's HTML page. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, `No such endpoint: ${req.method} ${req.path}`))
}

/** The body-parser errors Express raises carry a 4xx `status` and a `type`. */
interface ParserError {
  status: number
  type: string
  message: string
}

function isParserError(err: unknown): err is ParserError {
  if (typeof err !== 'object' || err === null) return false
  const e = err as Record<string, unknown>
  return typeof e.status === 'number' && e.status >= 400 && e.status < 500 && typeof e.type === 'string'
}

/**
 * The last middleware: every error becomes `{"status":"error","message":...}`.
 * Unexpected errors are logged with their details and answered with a generic 500,
 * so no stack trace or internal detail leaks to a client.
 */
export function errorResponder(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let status: number
    let message: string
    if (err instanceof HttpError) {
      status = err.status
      message = err.message
    } else if (isParserError(err)) {
      status = 400
      message =
        err.type === 'entity.parse.failed'
          ? `The request body is not valid JSON: ${err.message}`
          : `The request body could not be read: ${err.message}`
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
