import type { Page } from './pagination.js'
import type { TimeRange } from './time-range.js'

/** Which entries [from, to) of a series to serve, and how many the request covers in all. */
export interface SeriesWindow {
  from: number
  to: number
  total: number
}

/**
 * The page of a time series (oldest first, e.g. gap-filled candles) to serve. With a
 * range: the entries whose `time` lies in it (both ends inclusive), from `offset` on,
 * `limit` of them; total = how many lie in it. Without: the latest `limit` entries
 * before the `offset` newest ones (offset 0: the latest), still oldest first; total =
 * the length of the series.
 */
export function seriesWindow(series: ReadonlyArray<{ time: number }>, range: TimeRange | null, page: Page): SeriesWindow {
  if (range === null) {
    const to = Math.max(0, series.length - page.offset)
    return { from: Math.max(0, to - page.limit), to, total: series.length }
  }
  let first = 0
  while (first < series.length && series[first]!.time < range.startMs) first++
  let end = first
  while (end < series.length && series[end]!.time <= range.endMs) end++
  const from = Math.min(end, first + page.offset)
  return { from, to: Math.min(end, from + page.limit), total: end - first }
}
