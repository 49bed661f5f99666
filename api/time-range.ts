export interface TimeRange {
  /** Inclusive, ms since the epoch. */
  startMs: number
  /** Inclusive, ms since the epoch. */
  endMs: number
}

/** The range of parsed `start_time` and `end_time`, or null when neither was given. */
export function timeRangeOf(query: { start_time?: number | undefined; end_time?: number | undefined }): TimeRange | null {
  const { start_time: startMs, end_time: endMs } = query
  return startMs === undefined || endMs === undefined ? null : { startMs, endMs }
}

/** Below this, a time in ms is before 1973-03-03: such times are most likely seconds. */
const SECONDS_LIKE_BELOW = 1e11

/**
 * Said beside an empty page whose range looks like seconds (both ends below 10^11):
 * the times are milliseconds (Birdeye and GeckoTerminal take seconds).
 */
export function secondsHint(range: TimeRange | null, total: number): string | undefined {
  if (range === null || total > 0 || range.startMs >= SECONDS_LIKE_BELOW || range.endMs >= SECONDS_LIKE_BELOW) return undefined
  return (
    `start_time and end_time are Unix times in milliseconds; ${range.startMs} and ${range.endMs} look like seconds ` +
    `(nothing in that range): did you mean start_time=${range.startMs * 1000}&end_time=${range.endMs * 1000}?`
  )
}
