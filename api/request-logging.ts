import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'
import type { Logger as PinoLogger } from 'pino'
import { stdSerializers } from 'pino-http'
import type { Logger } from '../shared/platform/logger.js'

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-Id when it is a plain token, else a new one; always returned in the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id']
  const id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID()
  res.setHeader('X-Request-Id', id)
  return id
}

/** pino-http's line for a request that ended: its fields and messages, built only when the level is enabled. */
function logEnded(pino: PinoLogger, req: IncomingMessage, res: ServerResponse, id: string, startedAt: number, err: Error | undefined): void {
  const failed = err !== undefined || res.statusCode >= 500
  if (!pino.isLevelEnabled(failed ? 'error' : 'debug')) return
  const line = {
    req: Object.assign(stdSerializers.req(req), { id }),
    res: stdSerializers.res(res),
    responseTime: Date.now() - startedAt,
  }
  if (failed) {
    pino.error({ ...line, err: err ?? new Error(`failed with status code ${res.statusCode}`) }, 'request errored')
  } else {
    pino.debug(line, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted')
  }
}

/**
 * Every request gets an id (returned as X-Request-Id, and on its log line) and one log
 * line when it ends: `error` for a 5xx, `debug` otherwise (LOG_LEVEL=debug shows every
 * request without flooding the default level). The line is the one pino-http wrote (`req`
 * with the id, `res`, `responseTime`, `err` on a failure), but it is built only when its
 * level is enabled: pino-http serialized every request (its headers included) into a child
 * logger as it arrived, a fifth of a cached read's time at the default level.
 */
export function requestLogging(logger: Logger): RequestHandler {
  const pino = logger.pino
  return (req, res, next) => {
    const id = requestId(req, res)
    if (pino !== undefined) {
      const startedAt = Date.now()
      let ended = false
      // 'close' follows 'finish', or an abort, on every response. (No named closures per
      // request: tsx keeps function names, which costs a defineProperty each.)
      res.once('close', () => {
        if (!ended) logEnded(pino, req, res, id, startedAt, undefined)
        ended = true
      })
      res.on('error', (err: Error) => {
        if (!ended) logEnded(pino, req, res, id, startedAt, err)
        ended = true
      })
    }
    next()
  }
}
