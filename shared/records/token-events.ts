import { redisKey, type Redis } from '../platform/redis.js'

/**
 * "These tokens' metadata changed": published by ingestion once a job's token rows are
 * inserted, heard by every API process, whose in-memory token directory reloads them.
 * Redis pub/sub delivers to whoever listens at that moment and keeps nothing, so a
 * listener also reloads everything whenever it (re)subscribes and on a timer.
 */
export function tokensChangedChannel(prefix: string): string {
  return redisKey(prefix, 'events', 'tokens-changed')
}

/** Beyond this many addresses a message says "reload everything" rather than naming them. */
export const MAX_ADDRESSES_PER_MESSAGE = 1_000

/** What a message asks: reload these addresses, or every token. */
export type TokensChanged = { addresses: string[] } | { all: true }

export async function publishTokensChanged(redis: Redis, prefix: string, addresses: readonly string[]): Promise<void> {
  const unique = [...new Set(addresses)]
  if (unique.length === 0) return
  const message: TokensChanged = unique.length > MAX_ADDRESSES_PER_MESSAGE ? { all: true } : { addresses: unique }
  await redis.publish(tokensChangedChannel(prefix), JSON.stringify(message))
}

/** Reads a message; anything unreadable asks for everything (never miss a change). */
export function parseTokensChanged(message: string): TokensChanged {
  try {
    const parsed: unknown = JSON.parse(message)
    if (typeof parsed === 'object' && parsed !== null && 'addresses' in parsed) {
      const { addresses } = parsed
      if (Array.isArray(addresses) && addresses.every((a): a is string => typeof a === 'string')) {
        return { addresses: addresses.map((a) => a.toLowerCase()) }
      }
    }
  } catch {
    // fall through
  }
  return { all: true }
}
