import type { Request } from 'express'
import { z } from 'zod'
import { limitParam, MAX_LIMIT, offsetParam } from './contract/parameters.js'
import { parseWith } from './contract/request-parsing.js'

export interface Page {
  limit: number
  offset: number
}

export interface Pagination extends Page {
  total: number
}

/**
 * `limit` and `offset` alone, for a route outside the public contract (api/contract/:
 * a public endpoint declares its whole query there and reads it with parseRequest).
 */
export function parsePage(req: Request, maxLimit: number = MAX_LIMIT): Page {
  return parseWith(z.object({ limit: limitParam(maxLimit), offset: offsetParam }), req.query)
}
