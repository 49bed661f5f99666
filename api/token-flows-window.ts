import { HOUR_MS } from '../shared/platform/time-units.js'

export interface FlowWindow {
  /** Inclusive, ms since the epoch. */
  startMs: number
  endMs: number
}

/** How a window of flows is read: its whole hours from the stored flows, the rest from the swaps. */
export interface SplitWindow {
  /** The whole hours inside the window (hours since the epoch, inclusive); null when none is read from the stored flows. */
  hours: { first: number; last: number } | null
  /** The parts read from the swaps, inclusive ms; an empty one starts after it ends. */
  edges: [FlowWindow, FlowWindow]
}

const EMPTY: FlowWindow = { startMs: 1, endMs: 0 }

/**
 * Splits an inclusive window into the whole hours it covers and the partial hours at
 * either end. `byHour` false (several addresses at once, whose stored rows a swap between
 * two of them would count twice): the whole window from the swaps.
 */
export function splitWindow(window: FlowWindow, byHour: boolean): SplitWindow {
  const first = Math.ceil(window.startMs / HOUR_MS)
  const last = Math.floor((window.endMs + 1) / HOUR_MS) - 1
  if (!byHour || first > last) return { hours: null, edges: [window, EMPTY] }
  return {
    hours: { first, last },
    edges: [
      window.startMs < first * HOUR_MS ? { startMs: window.startMs, endMs: first * HOUR_MS - 1 } : EMPTY,
      window.endMs >= (last + 1) * HOUR_MS ? { startMs: (last + 1) * HOUR_MS, endMs: window.endMs } : EMPTY,
    ],
  }
}

/** SQL: `timestamp` within the edge whose parameters are `{<name>Start:Int64}` and `{<name>End:Int64}` (inclusive ms). */
export function inEdge(name: string): string {
  return `(timestamp >= fromUnixTimestamp64Milli({${name}Start:Int64}, 'UTC') AND timestamp <= fromUnixTimestamp64Milli({${name}End:Int64}, 'UTC'))`
}
