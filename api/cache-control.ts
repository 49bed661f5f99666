import type { RequestHandler, Response } from 'express'
import { candleStart } from '../shared/candles/candles.js'

/**
 * The read API's default: a client may keep a response but must revalidate it
 * (If-None-Match against the ETag: a 304 costs no body). Data arrives at any time, so
 * nothing is fresh without asking, except what closedSeriesCaching allows.
 */
export const revalidateAlways: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-cache')
  next()
}

export interface SeriesCachePolicy {
  /** How long a closed series may be served without asking; 0: never. */
  maxAgeS: number
  /** False when API keys are required: then only the client's own cache may keep it (a shared cache would skip the key check). */
  shared: boolean
}

/**
 * A page of a time series of closed candles (candles, indicator history) over
 * [start_time, end_time] may be cached for maxAgeS when the range ends before the
 * interval in progress: every candle the range can ever hold has closed, so the passing
 * of time cannot add one or change one. Only records that arrive late (a backfill of old
 * swaps or prices) can still change such a candle, which is why this is a bounded max-age
 * rather than `immutable`. Without a range (the latest candles) or with a range reaching
 * into the open interval, the default stays: `no-cache`.
 */
export function cacheClosedSeries(
  res: Response,
  policy: SeriesCachePolicy,
  range: { endMs: number } | null,
  intervalMs: number,
  now: number,
): void {
  if (policy.maxAgeS === 0 || range === null || range.endMs >= candleStart(now, intervalMs)) return
  res.setHeader('Cache-Control', `${policy.shared ? 'public' : 'private'}, max-age=${policy.maxAgeS}`)
}
