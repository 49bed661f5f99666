import { createHash } from 'node:crypto'
import type { Request, RequestHandler } from 'express'
import { HttpError } from './http-error.js'

/** A key's name in logs and Redis: a digest, so no key is ever written anywhere. */
function fingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32)
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i

/** The key a request presents: `X-API-Key`, else `Authorization: Bearer <key>`. */
function presentedKey(req: Request): string | undefined {
  const header = req.get('x-api-key')
  if (header !== undefined && header !== '') return header.trim()
  const authorization = req.get('authorization')
  if (authorization === undefined) return undefined
  return BEARER.exec(authorization)?.[1]
}

const keyIds = new WeakMap<Request, string>()

/** The fingerprint of the valid API key the request presented (undefined when keys are off). */
export function apiKeyIdOf(req: Request): string | undefined {
  return keyIds.get(req)
}

export const MISSING_KEY_MESSAGE = 'An API key is required: send it as X-API-Key: <key> or Authorization: Bearer <key>'
export const INVALID_KEY_MESSAGE = 'The API key is not valid'

/**
 * With API_KEYS set, a request without one of them is a 401 (with
 * `WWW-Authenticate: Bearer`). Keys are compared by their SHA-256 digest, so the lookup
 * takes the same time whatever prefix of a key a guess shares. Without keys: passes.
 */
export function apiKeyCheck(keys: readonly string[]): RequestHandler {
  if (keys.length === 0) return (_req, _res, next) => next()
  const known: ReadonlySet<string> = new Set(keys.map(fingerprint))
  return (req, res, next) => {
    const key = presentedKey(req)
    const id = key === undefined ? undefined : fingerprint(key)
    if (id !== undefined && known.has(id)) {
      keyIds.set(req, id)
      next()
      return
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="api"')
    next(new HttpError(401, key === undefined ? MISSING_KEY_MESSAGE : INVALID_KEY_MESSAGE))
  }
}
