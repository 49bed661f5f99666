import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'
import { pinoHttp } from 'pino-http'
import type { Logger } from '../shared/logger.js'

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-Id when it is a plain token, else a new one; always returned in the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id']
  const id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID()
  res.setHeader('X-Request-Id', id)
  return id
}

/**
 * pino-http on every request: a request id (returned as X-Request-Id, and on every line
 * logged about the request), and one line per request: `error` for a 5xx, `debug`
 * otherwise (LOG_LEVEL=debug shows every request without flooding the default level).
 */
export function requestLogging(logger: Logger): RequestHandler {
  if (logger.pino === undefined) {
    return (req, res, next) => {
      requestId(req, res)
      next()
    }
  }
  return pinoHttp({
    logger: logger.pino,
    genReqId: requestId,
    customLogLevel: (_req, res, err) => (err !== undefined || res.statusCode >= 500 ? 'error' : 'debug'),
  })
}
