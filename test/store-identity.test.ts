import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TokenIdRegistry } from '../ingest/pipeline/token-ids.js'
import { tokenRecord, type TokenRecord } from '../shared/records/records.js'
import { createRedis, redisKey, type Redis } from '../shared/platform/redis.js'
import { alignRedisWithStore } from '../shared/redis-store-binding.js'
import { readStoreId } from '../shared/storage/store-identity.js'
import { readTechnicalAnalysis, writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { sampleTechnicalAnalysis } from './support/factories.js'
import { getJson, startTestApi } from './support/http.js'
import { addressOf } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

function token(address: string, id: string): TokenRecord {
  return tokenRecord.parse({ contract_address: address, name: 'Token', symbol: 'TKN', decimals: 18, id })
}

/**
 * The embedded data directory deleted while Redis keeps its keys: the next start is on a
 * new, empty store under the same REDIS_PREFIX. Here store A and store B are two databases
 * of the embedded engine sharing one prefix; each start runs alignRedisWithStore, as
 * runRoles does before starting any role.
 */
describe('Redis state is tied to the store it was computed from', () => {
  let storeA: TestRuntime
  let storeB: TestRuntime | undefined
  let redis: Redis
  const cached = addressOf(7_001)
  const claimer = addressOf(7_002)
  const newcomer = addressOf(7_003)

  beforeAll(async () => {
    storeA = await createTestRuntime()
    redis = createRedis(storeA.config.redis.url)
  })
  afterAll(async () => {
    await storeB?.cleanup()
    await storeA.cleanup()
    redis.disconnect()
  })

  it('each store has one id, written once and the same on every read', async () => {
    const id = await readStoreId(storeA.clickhouse, storeA.tables)
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await readStoreId(storeA.clickhouse, storeA.tables)).toBe(id)
  })

  it('a restart on the same store keeps the cache and the claims; a new store does not see them', async () => {
    const prefix = storeA.config.redis.prefix
    expect((await alignRedisWithStore(storeA)).cleared).toBe(0)
    await writeTechnicalAnalysis(redis, prefix, sampleTechnicalAnalysis({ contractAddress: cached }))
    const registryA = new TokenIdRegistry(storeA.clickhouse, storeA.tables, redis, prefix)
    // A job of store A claimed 'shared-id' for `claimer` (its rows never reached store B).
    expect((await registryA.assign([token(claimer, 'shared-id')])).ids.get(claimer)).toBe('shared-id')
    expect((await registryA.assign([token(newcomer, 'shared-id')])).refused.size).toBe(1)

    // Restart on store A: nothing is cleared.
    expect((await alignRedisWithStore(storeA)).cleared).toBe(0)
    expect(await readTechnicalAnalysis(redis, prefix, cached)).not.toBeNull()

    // Start over on a new store with the same prefix.
    storeB = await createTestRuntime({ REDIS_PREFIX: prefix })
    expect(await readStoreId(storeB.clickhouse, storeB.tables)).not.toBe(await readStoreId(storeA.clickhouse, storeA.tables))
    const binding = await alignRedisWithStore(storeB)
    expect(binding.cleared).toBeGreaterThanOrEqual(3) // the result, the claim and the id's owner

    // The old store's result is not served: the token is unknown to store B.
    const api = await startTestApi(storeB, { onDemandWaitMs: 0 })
    try {
      const response = await getJson<{ message: string }>(`${api.baseUrl}/technical-analysis?contract_address=${cached}`)
      expect(response.status).toBe(404)
      expect(response.body.message).toBe(`No token with contract address ${cached}`)
    } finally {
      await api.close()
    }
    // The old store's claim does not hold against store B.
    const registryB = new TokenIdRegistry(storeB.clickhouse, storeB.tables, redis, prefix)
    const assigned = await registryB.assign([token(newcomer, 'shared-id')])
    expect(assigned.refused.size).toBe(0)
    expect(assigned.ids.get(newcomer)).toBe('shared-id')

    // Store B's own state survives its restarts; Redis names the store it belongs to.
    expect((await alignRedisWithStore(storeB)).cleared).toBe(0)
    expect(await redis.get(redisKey(prefix, 'token-id', newcomer))).toBe('shared-id')
    expect(await redis.get(redisKey(prefix, 'store-id'))).toBe(await readStoreId(storeB.clickhouse, storeB.tables))
  })

  it('processes starting together on a new store clear once and all start', async () => {
    const prefix = storeA.config.redis.prefix
    await writeTechnicalAnalysis(redis, prefix, sampleTechnicalAnalysis({ contractAddress: cached }))
    await redis.set(redisKey(prefix, 'store-id'), 'some-other-store')
    const bindings = await Promise.all([alignRedisWithStore(storeA), alignRedisWithStore(storeA), alignRedisWithStore(storeA)])
    expect(bindings.filter((b) => b.cleared > 0)).toHaveLength(1)
    expect(await readTechnicalAnalysis(redis, prefix, cached)).toBeNull()
  })
})
