import type { Request } from 'express'
import { singleValue } from './contract/parameters.js'
import { parseWith } from './contract/request-parsing.js'

/**
 * One query-string value: undefined when absent, a 400 when the parameter is repeated
 * or structured (`?limit=1&limit=2`, `?limit[a]=1`).
 */
export function singleQueryValue(req: Request, name: string): string | undefined {
  return parseWith(singleValue(name).optional(), (req.query as Record<string, unknown>)[name])
}
