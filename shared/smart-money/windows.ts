import { DAY_MS } from '../platform/time-units.js'
import type { StatWindow } from '../platform/smart-money-settings.js'

/** Days per window; `all` has no start. */
export const WINDOW_DAYS: Record<StatWindow, number | null> = { '30d': 30, '90d': 90, '180d': 180, all: null }

/** The first millisecond inside a window ending at `asOfMs` (0 for all time). */
export function windowStartMs(window: StatWindow, asOfMs: number): number {
  const days = WINDOW_DAYS[window]
  return days === null ? 0 : asOfMs - days * DAY_MS
}
