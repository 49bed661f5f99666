import { createHash, timingSafeEqual } from 'node:crypto'
import type { RequestHandler } from 'express'

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` (or, for a browser opening the queue dashboard,
 * HTTP Basic with the token as password and any user name). Compared in constant time:
 * both sides are hashed first, so neither the token's content nor its length shows in
 * the time a wrong guess takes. Anything else is a JSON 401.
 */
export function adminAuth(token: string): RequestHandler {
  const expected = digest(token)
  return (req, res, next) => {
    const presented = presentedToken(req.headers.authorization)
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) {
      next()
      return
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="admin", Basic realm="admin"')
    res.status(401).json({
      status: 'error',
      message:
        presented === undefined
          ? 'The admin endpoints need Authorization: Bearer <ADMIN_TOKEN>'
          : 'The admin token is not valid',
    })
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

function presentedToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header)
  if (!match) return undefined
  if (match[1]!.toLowerCase() === 'bearer') return match[2]!
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? undefined : decoded.slice(colon + 1)
}
