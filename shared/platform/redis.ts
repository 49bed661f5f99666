import { Redis } from 'ioredis'
import type { Logger } from './logger.js'

export type { Redis }

/**
 * A Redis connection. BullMQ workers require maxRetriesPerRequest null (they block);
 * request/response users (the API) get a bounded retry so a dead Redis fails fast.
 *
 * With a logger, the connection follows the one connection policy (watchRedisOutages):
 * an outage is logged once per process however many connections see it, and so is the
 * recovery. Without one the caller handles the connection's 'error' events itself.
 */
export function createRedis(url: string, purpose: 'bullmq' | 'commands' = 'commands', logger?: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: purpose === 'bullmq' ? null : 2,
    enableReadyCheck: true,
    lazyConnect: false,
  })
  if (logger) watchRedisOutages(redis, url, logger)
  return redis
}

/** Per Redis URL: the connections of this process that are down, and since when. */
const outages = new Map<string, { down: Set<Redis>; since: number }>()

/**
 * ioredis reconnects in the background and emits 'error' at every failed attempt, on every
 * connection: logged as is, one outage floods the logs. Here the first connection of the
 * process to lose a Redis logs `redis unavailable` (warn, with the error), and the last one
 * to get it back logs `redis available again` (info, with how long it was down); the
 * repeats are dropped. Requests that fail meanwhile are answered by their callers (the
 * API: 503, see shared/platform/redis-connection-errors.ts).
 */
export function watchRedisOutages(redis: Redis, url: string, logger: Logger): void {
  const outage = outages.get(url) ?? { down: new Set<Redis>(), since: 0 }
  outages.set(url, outage)
  const { down } = outage
  redis.on('error', (err: Error) => {
    if (down.has(redis)) return
    if (down.size === 0) {
      outage.since = Date.now()
      logger.warn('redis unavailable', { err })
    }
    down.add(redis)
  })
  redis.on('ready', () => {
    if (!down.delete(redis)) return
    if (down.size === 0) logger.info('redis available again', { downMs: Date.now() - outage.since })
  })
  // A connection closed for good no longer counts; the outage ends with the others.
  redis.on('end', () => down.delete(redis))
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
