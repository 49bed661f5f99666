import type { RequestHandler } from 'express'
import { HttpError, methodNotAllowed } from './http-error.js'
import { isKnownPath } from './known-paths.js'

/** The API is read-only: every path takes these and nothing else. */
export const ALLOWED_METHODS = ['GET', 'HEAD'] as const

const allowedMethods: ReadonlySet<string> = new Set(ALLOWED_METHODS)

/**
 * Before the routes: any other method (OPTIONS included, which Express would otherwise
 * answer itself in text/plain) is a JSON 405 with `Allow: GET, HEAD` on a known path,
 * and a JSON 404 elsewhere.
 */
export const methodGuard: RequestHandler = (req, res, next) => {
  if (allowedMethods.has(req.method)) {
    next()
    return
  }
  if (!isKnownPath(req.path)) {
    next(new HttpError(404, `No such endpoint: ${req.method} ${req.path}`))
    return
  }
  res.setHeader('Allow', ALLOWED_METHODS.join(', '))
  next(methodNotAllowed(req.method, req.path, ALLOWED_METHODS))
}
