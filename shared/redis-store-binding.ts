import { randomUUID } from 'node:crypto'
import type { Logger } from './platform/logger.js'
import { createRedis, keySpacePattern, redisKey, StoreScopedKeySpaces, type Redis } from './platform/redis.js'
import type { Runtime } from './runtime.js'
import { readStoreId } from './storage/store-identity.js'

export interface StoreBinding {
  storeId: string
  /** The store Redis held state for before (null: none recorded). */
  previous: string | null
  /** Keys deleted because they belonged to another store (0 when Redis already matched). */
  cleared: number
}

const LOCK_MS = 60_000
const POLL_MS = 50

/** Deletes the key only if it still holds this owner's value. */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/**
 * Ties the store-scoped Redis state (StoreScopedKeySpaces: cached technical analysis,
 * token-id claims) to the ClickHouse store it was derived from. `<prefix>:store-id` names
 * that store; when it names another one (the embedded data directory was deleted and a
 * new store created, or it is absent: Redis lost its data or predates this), those keys
 * are deleted and the key set to this store, before any role starts. One process clears
 * (under a lock, `<prefix>:store-id-reset`); the others starting at the same time wait for
 * it, so no claim written after the reset is deleted by it.
 */
export async function bindRedisToStore(redis: Redis, prefix: string, storeId: string, logger: Logger): Promise<StoreBinding> {
  const idKey = redisKey(prefix, 'store-id')
  const lockKey = redisKey(prefix, 'store-id-reset')
  const owner = randomUUID()
  const deadline = Date.now() + 2 * LOCK_MS
  for (;;) {
    const current = await redis.get(idKey)
    if (current === storeId) return { storeId, previous: current, cleared: 0 }
    if ((await redis.set(lockKey, owner, 'PX', LOCK_MS, 'NX')) === 'OK') {
      try {
        const previous = await redis.get(idKey)
        if (previous === storeId) return { storeId, previous, cleared: 0 }
        let cleared = 0
        for (const space of Object.values(StoreScopedKeySpaces)) cleared += await deleteMatching(redis, keySpacePattern(prefix, space))
        await redis.set(idKey, storeId)
        const fields = { storeId, previousStoreId: previous, cleared }
        if (previous === null && cleared === 0) logger.info('redis bound to this store', fields)
        else logger.warn('redis held state of another store: cleared its cached results and token-id claims', fields)
        return { storeId, previous, cleared }
      } finally {
        await redis.eval(RELEASE_SCRIPT, 1, lockKey, owner)
      }
    }
    if (Date.now() > deadline) throw new Error(`redis: ${lockKey} held for more than ${2 * LOCK_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * Reads the runtime's store id and binds Redis (REDIS_PREFIX) to it: the first thing
 * runRoles does after the migrations. While Redis does not answer it waits for it (logged
 * once), since no role may use Redis before its state is known to be this store's.
 */
export async function alignRedisWithStore(runtime: Runtime, retryMs = 1_000): Promise<StoreBinding> {
  const { logger } = runtime
  const storeId = await readStoreId(runtime.clickhouse, runtime.tables)
  const redis = createRedis(runtime.config.redis.url, 'commands', logger)
  let warned = false
  try {
    for (;;) {
      try {
        return await bindRedisToStore(redis, runtime.config.redis.prefix, storeId, logger)
      } catch (err) {
        if (redis.status === 'ready') throw err
        if (!warned) logger.warn('waiting for redis before starting the roles', { err })
        warned = true
        await new Promise((resolve) => setTimeout(resolve, retryMs))
      }
    }
  } finally {
    redis.disconnect()
  }
}

async function deleteMatching(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0'
  let deleted = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) deleted += await redis.unlink(...keys)
  } while (cursor !== '0')
  return deleted
}
