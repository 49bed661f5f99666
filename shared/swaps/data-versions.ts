import { randomUUID } from 'node:crypto'
import { redisKey, type Redis } from '../platform/redis.js'
import { readSwapHoursVersion } from './swap-hours.js'

/**
 * A token per kind of stored data that changes whenever ingestion stores rows of it, so an
 * API process can keep results of reads and know exactly when they may have changed
 * (api/versioned-results.ts). Written after the rows are stored and before the job is
 * acknowledged: a read that starts after an acknowledgement sees the new token.
 *
 * Swaps use the token that their hour marks already set (shared/swaps/swap-hours.ts). Tokens are
 * random, never counters: after Redis loses its data a token is missing or new, never one
 * a cache already holds.
 */
export type VersionedData = 'swaps' | 'holdings' | 'candleInputs'

function versionKey(prefix: string, data: Exclude<VersionedData, 'swaps'>): string {
  return redisKey(prefix, data, 'version')
}

export async function markHoldingsChanged(redis: Redis, prefix: string): Promise<void> {
  await redis.set(versionKey(prefix, 'holdings'), randomUUID())
}

/** Rows that can change a candle were stored: swaps, retractions, prices or tokens (decimals). */
export async function markCandleInputsChanged(redis: Redis, prefix: string): Promise<void> {
  await redis.set(versionKey(prefix, 'candleInputs'), randomUUID())
}

/** The current token of `data`; null when none was written (nothing can be vouched for). */
export function readDataVersion(redis: Redis, prefix: string, data: VersionedData): Promise<string | null> {
  return data === 'swaps' ? readSwapHoursVersion(redis, prefix) : redis.get(versionKey(prefix, data))
}
