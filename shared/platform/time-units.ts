/** One hour in milliseconds: the grain of the swap counts and of the stored candles. */
export const HOUR_MS = 3_600_000
