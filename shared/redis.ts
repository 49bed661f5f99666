import { Redis } from 'ioredis'

export type { Redis }

/**
 * A Redis connection. BullMQ workers require maxRetriesPerRequest null (they block);
 * request/response users (the API) get a bounded retry so a dead Redis fails fast.
 */
export function createRedis(url: string, purpose: 'bullmq' | 'commands' = 'commands'): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: purpose === 'bullmq' ? null : 2,
    enableReadyCheck: true,
    lazyConnect: false,
  })
}

/** Every Redis key the service writes starts with the configured prefix. */
export function redisKey(prefix: string, ...parts: string[]): string {
  return [prefix, ...parts].join(':')
}

/**
 * Key spaces (`<prefix>:<space>:…`) holding state derived from one ClickHouse store: the
 * cached technical-analysis results and the token-id claims. They are cleared when Redis
 * meets another store under the same prefix (shared/redis-store-binding.ts).
 */
export const StoreScopedKeySpaces = {
  technicalAnalysis: 'ta',
  /** The indicator engine's carried state per token (one hash). */
  indicatorState: 'ta-state',
  tokenIdClaim: 'token-id',
  tokenIdOwner: 'token-id-owner',
} as const

/** A SCAN MATCH pattern for every key under `prefix:space:` (glob characters of the prefix escaped). */
export function keySpacePattern(prefix: string, space: string): string {
  return `${redisKey(prefix, space).replace(/[*?[\]\\]/g, '\\$&')}:*`
}

/** Deletes every key under a prefix (used by tests and operators to clean up). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0'
  let deleted = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) deleted += await redis.del(...keys)
  } while (cursor !== '0')
  return deleted
}
