import type { RequestHandler } from 'express'
import { badRequest } from './http-error.js'

/** `limit[]=5`, `limit[a]=1`: bracket syntax the query parser keeps as the literal key `limit[]`. */
const BRACKETED_KEY = /^([^[\]]*)\[/

/**
 * Before the routes: the query parser keeps `limit[]=5` under the key `limit[]`, so a
 * route reading `limit` would silently see nothing and use its default. Such a
 * structured parameter is a 400 naming it, as a repeated one is (query-params.ts).
 */
export const structuredQueryGuard: RequestHandler = (req, _res, next) => {
  for (const key of Object.keys(req.query as Record<string, unknown>)) {
    const bracketed = BRACKETED_KEY.exec(key)
    if (bracketed) {
      const name = bracketed[1] === '' ? key : bracketed[1]
      next(badRequest(`${name} must be given once, as a single value (got the structured parameter ${JSON.stringify(key)})`))
      return
    }
  }
  next()
}
