import type { Request } from 'express'
import { badRequest } from './http-error.js'
import { singleQueryValue } from './query-params.js'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500
/** The longest page of a time series (candles, indicator history): a chart's worth. */
export const MAX_SERIES_LIMIT = 1000

export interface Page {
  limit: number
  offset: number
}

export interface Pagination extends Page {
  total: number
}

const DIGITS = /^\d+$/

/**
 * `limit` (1..`maxLimit`, default 50; 500 for the interface's lists, MAX_SERIES_LIMIT for
 * time series) and `offset` (>= 0, default 0). Out-of-range values are a 400, never
 * clamped: a client stepping its offset by the limit it asked for would otherwise
 * silently skip rows.
 */
export function parsePage(req: Request, maxLimit: number = MAX_LIMIT): Page {
  const rawLimit = singleQueryValue(req, 'limit')
  const rawOffset = singleQueryValue(req, 'offset')
  let limit = DEFAULT_LIMIT
  if (rawLimit !== undefined) {
    limit = DIGITS.test(rawLimit) ? Number(rawLimit) : NaN
    if (!(limit >= 1 && limit <= maxLimit)) {
      throw badRequest(`limit must be an integer from 1 to ${maxLimit} (got "${rawLimit}")`)
    }
  }
  let offset = 0
  if (rawOffset !== undefined) {
    offset = DIGITS.test(rawOffset) ? Number(rawOffset) : NaN
    if (!(offset >= 0 && offset <= Number.MAX_SAFE_INTEGER)) {
      throw badRequest(`offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (got "${rawOffset}")`)
    }
  }
  return { limit, offset }
}
