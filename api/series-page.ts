import type { Request } from 'express'
import { badRequest } from './http-error.js'
import { DEFAULT_LIMIT, type Page } from './pagination.js'
import { singleQueryValue } from './query-params.js'

/** The longest page of a time series (candles, indicator history): a chart's worth. */
export const MAX_SERIES_LIMIT = 1000

const DIGITS = /^\d+$/

/**
 * `limit` (1..1000, default 50) and `offset` (>= 0, default 0) of a time series. The
 * rules of pagination.ts (a 400 naming the bounds, never clamped) with a longer page.
 */
export function parseSeriesPage(req: Request): Page {
  const rawLimit = singleQueryValue(req, 'limit')
  const rawOffset = singleQueryValue(req, 'offset')
  let limit = DEFAULT_LIMIT
  if (rawLimit !== undefined) {
    limit = DIGITS.test(rawLimit) ? Number(rawLimit) : NaN
    if (!(limit >= 1 && limit <= MAX_SERIES_LIMIT)) {
      throw badRequest(`limit must be an integer from 1 to ${MAX_SERIES_LIMIT} (got "${rawLimit}")`)
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
