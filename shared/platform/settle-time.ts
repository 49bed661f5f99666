/**
 * How long before its clock a statistics run takes every stamped swap row as stored
 * (seen-swaps.ts), by default: the ingest's longest insert (the ClickHouse client's request
 * timeout, 120 s) and its flush interval, with room. WALLET_STATS_SETTLE_MS sets it.
 */
export const DEFAULT_SETTLE_MS = 180_000
