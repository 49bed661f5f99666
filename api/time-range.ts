import type { Request } from 'express'
import { badRequest } from './http-error.js'
import { singleQueryValue } from './query-params.js'

export interface TimeRange {
  /** Inclusive, ms since the epoch. */
  startMs: number
  /** Inclusive, ms since the epoch. */
  endMs: number
}

function requiredMs(req: Request, name: string): number {
  const raw = singleQueryValue(req, name)
  if (raw === undefined || raw === '') {
    throw badRequest(`${name} is required (Unix time in milliseconds)`)
  }
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(value <= Number.MAX_SAFE_INTEGER)) {
    throw badRequest(`${name} must be a non-negative integer number of milliseconds since the epoch (got "${raw}")`)
  }
  return value
}

/** `start_time` and `end_time`, both required, both inclusive; start after end is a 400. */
export function parseTimeRange(req: Request): TimeRange {
  const startMs = requiredMs(req, 'start_time')
  const endMs = requiredMs(req, 'end_time')
  if (startMs > endMs) {
    throw badRequest(`start_time (${startMs}) must not be after end_time (${endMs})`)
  }
  return { startMs, endMs }
}
