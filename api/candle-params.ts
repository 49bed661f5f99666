import type { Request } from 'express'
import { badRequest } from './http-error.js'
import { singleQueryValue } from './query-params.js'
import { parseTimeRange, type TimeRange } from './time-range.js'
import { HOUR_MS } from '../shared/time-units.js'


/** The candle intervals served, by name, in ms. */
export const CANDLE_INTERVALS = { '1h': HOUR_MS, '4h': 4 * HOUR_MS, '1d': 24 * HOUR_MS } as const
export type CandleInterval = keyof typeof CANDLE_INTERVALS
export const DEFAULT_CANDLE_INTERVAL: CandleInterval = '4h'

function isCandleInterval(value: string): value is CandleInterval {
  return Object.prototype.hasOwnProperty.call(CANDLE_INTERVALS, value)
}

/** `interval`: 1h, 4h (default) or 1d; anything else is a 400 naming the accepted values. */
export function parseCandleInterval(req: Request): { name: CandleInterval; ms: number } {
  const raw = singleQueryValue(req, 'interval')
  const name = raw === undefined ? DEFAULT_CANDLE_INTERVAL : raw
  if (!isCandleInterval(name)) {
    throw badRequest(`interval must be one of ${Object.keys(CANDLE_INTERVALS).join(', ')} (got "${name}")`)
  }
  return { name, ms: CANDLE_INTERVALS[name] }
}

/**
 * `start_time` and `end_time` together (as parseTimeRange: inclusive ms, a 400 when one
 * is malformed or start is after end), or neither: null. One without the other is a 400
 * naming the missing one.
 */
export function parseOptionalTimeRange(req: Request): TimeRange | null {
  const given = ['start_time', 'end_time'].filter((name) => {
    const value = singleQueryValue(req, name)
    return value !== undefined && value !== ''
  })
  return given.length === 0 ? null : parseTimeRange(req)
}
