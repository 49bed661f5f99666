/** One hour in milliseconds: the grain of the swap counts and of the stored candles. */
export const HOUR_MS = 3_600_000
/** One day in milliseconds. */
export const DAY_MS = 86_400_000

/** The start (ms) of the hour `ms` falls in, before 1970 too. */
export function hourStart(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)
}
