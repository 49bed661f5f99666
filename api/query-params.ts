import type { Request } from 'express'
import { badRequest } from './http-error.js'

/**
 * One query-string value: undefined when absent, a 400 when the parameter is repeated
 * or structured (`?limit=1&limit=2`, `?limit[a]=1`).
 */
export function singleQueryValue(req: Request, name: string): string | undefined {
  const value: unknown = (req.query as Record<string, unknown>)[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw badRequest(`${name} must be given once, as a single value`)
  return value
}
