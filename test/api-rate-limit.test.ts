import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer, type ApiServer } from '../api/api-server.js'
import { INVALID_KEY_MESSAGE, MISSING_KEY_MESSAGE } from '../api/api-keys.js'
import { rateLimitKeyPrefix } from '../api/rate-limit.js'
import { loadConfig } from '../shared/platform/config.js'
import { createRedis } from '../shared/platform/redis.js'
import { fetchBytes, jsonOf, type BytesResponse } from './support/bytes-http.js'
import { freePort, startPrivateRedis } from './support/private-redis.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const KEY_A = 'key-a-0123456789abcdef'
const KEY_B = 'key-b-fedcba9876543210'

describe('API keys and rate limits', () => {
  let rt: TestRuntime

  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  let apis = 0

  /**
   * The real API configured from the test environment plus `env`, as the service would be
   * from its environment; each under its own key prefix (inside the runtime's, which the
   * cleanup deletes), so no test inherits another's counters.
   */
  async function withApi(env: Record<string, string>, run: (base: string) => Promise<void>, redisUrl?: string): Promise<void> {
    const prefix = `${rt.config.redis.prefix}:api${++apis}`
    const config = loadConfig({ ...rt.env, REDIS_PREFIX: prefix, ...env, ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }) })
    const api: ApiServer = await startApiServer({ ...rt, config }, 0, '127.0.0.1')
    try {
      await run(`http://127.0.0.1:${api.port}`)
    } finally {
      await api.close()
    }
  }

  const get = (url: string, headers: Record<string, string> = {}) => fetchBytes(url, { headers })

  function expectTooMany(res: BytesResponse, limit: number): void {
    expect(res.status).toBe(429)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const retryAfter = Number(res.headers['retry-after'])
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true)
    expect(jsonOf(res)).toEqual({
      status: 'error',
      message: `Too many requests: the limit is ${limit} per minute; retry after ${retryAfter} s`,
    })
  }

  it('the settings are validated', () => {
    expect(() => loadConfig({ API_KEYS: 'short' })).toThrow(/API_KEYS.*at least 16 printable characters/)
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE/)
    expect(loadConfig({ API_KEYS: ` ${KEY_A} ,${KEY_B}` }).httpApi.apiKeys).toEqual([KEY_A, KEY_B])
    const defaults = loadConfig({}).httpApi
    expect(defaults.apiKeys).toEqual([])
    expect(defaults.rateLimitPerMinute).toBe(0)
  })

  it('with API_KEYS: 401 JSON without a valid key; a key in either header; a budget per key; 429 with Retry-After', async () => {
    await withApi({ API_KEYS: `${KEY_A},${KEY_B}`, RATE_LIMIT_PER_MINUTE: '3' }, async (base) => {
      const none = await get(`${base}/tokens`)
      expect(none.status).toBe(401)
      expect(none.headers['www-authenticate']).toBe('Bearer realm="api"')
      expect(jsonOf(none)).toEqual({ status: 'error', message: MISSING_KEY_MESSAGE })
      const wrong = await get(`${base}/tokens`, { 'x-api-key': `${KEY_A}x` })
      expect(wrong.status).toBe(401)
      expect(jsonOf(wrong)).toEqual({ status: 'error', message: INVALID_KEY_MESSAGE })
      expect((await get(`${base}/tokens`, { authorization: 'Basic abc' })).status).toBe(401)
      // Unknown paths too: nothing of the read API answers without a key.
      expect((await get(`${base}/nowhere`)).status).toBe(401)

      // Key A, by X-API-Key: 3 requests, then 429 (the 401s above spent no budget).
      for (let i = 0; i < 3; i++) {
        const ok = await get(`${base}/tokens`, { 'x-api-key': KEY_A })
        expect(ok.status).toBe(200)
        expect(ok.headers['ratelimit']).toMatch(new RegExp(`^limit=3, remaining=${2 - i}, reset=\\d+$`))
      }
      expectTooMany(await get(`${base}/tokens`, { 'x-api-key': KEY_A }), 3)
      // The same key as a bearer token shares that budget.
      expectTooMany(await get(`${base}/tokens`, { authorization: `Bearer ${KEY_A}` }), 3)

      // Key B has its own budget, from the same client address.
      for (let i = 0; i < 3; i++) expect((await get(`${base}/tokens`, { authorization: `Bearer ${KEY_B}` })).status).toBe(200)
      expectTooMany(await get(`${base}/tokens`, { 'x-api-key': KEY_B }), 3)

      // Health, readiness and metrics: no key, no budget.
      for (let i = 0; i < 5; i++) {
        for (const path of ['/health', '/ready', '/metrics']) {
          const res = await get(`${base}${path}`)
          expect(res.status, path).toBe(200)
          expect(res.headers['ratelimit'], path).toBeUndefined()
        }
      }

      // The counters are in Redis under the service's prefix, by key digest: no key is written anywhere.
      const redis = createRedis(rt.config.redis.url)
      try {
        const keys = await redis.keys(`${rateLimitKeyPrefix(`${rt.config.redis.prefix}:api${apis}`)}*`)
        expect(keys).toHaveLength(2)
        for (const key of keys) expect(key).toMatch(/:rate-limit:key:[0-9a-f]{32}$/)
        expect(keys.join()).not.toContain(KEY_A)
      } finally {
        redis.disconnect()
      }
    })
  })

  it('without API_KEYS: no key needed, the budget is per client IP', async () => {
    await withApi({ RATE_LIMIT_PER_MINUTE: '2' }, async (base) => {
      expect((await get(`${base}/tokens`)).status).toBe(200)
      // Any path counts (a 404 too), whatever key-like header is sent.
      expect((await get(`${base}/nowhere`, { 'x-api-key': KEY_A })).status).toBe(404)
      expectTooMany(await get(`${base}/tokens`), 2)
      expect((await get(`${base}/health`)).status).toBe(200)
    })
  })

  it('the client IP: X-Forwarded-For is ignored by default, and names the client behind a trusted proxy (TRUST_PROXY)', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    await withApi({ RATE_LIMIT_PER_MINUTE: '2' }, async (base) => {
      expect((await get(`${base}/tokens`, from('10.0.0.1'))).status).toBe(200)
      expect((await get(`${base}/tokens`, from('10.0.0.2'))).status).toBe(200)
      // A client cannot buy itself a fresh budget with a made-up header.
      expectTooMany(await get(`${base}/tokens`, from('10.0.0.3')), 2)
    })
    await withApi({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' }, async (base) => {
      for (const ip of ['10.0.0.1', '10.0.0.2']) {
        expect((await get(`${base}/tokens`, from(ip))).status).toBe(200)
        expect((await get(`${base}/tokens`, from(ip))).status).toBe(200)
      }
      expectTooMany(await get(`${base}/tokens`, from('10.0.0.1')), 2)
    })
  })

  it('by default (RATE_LIMIT_PER_MINUTE=0): no limit and no rate-limit headers', async () => {
    await withApi({}, async (base) => {
      for (let i = 0; i < 30; i++) {
        const res = await get(`${base}/tokens`)
        expect(res.status).toBe(200)
        expect(res.headers['ratelimit']).toBeUndefined()
      }
    })
  })

  it('Redis down: requests pass uncounted (fail open); once Redis is back, the limit applies again', async () => {
    const port = await freePort()
    await withApi(
      { RATE_LIMIT_PER_MINUTE: '1' },
      async (base) => {
        for (let i = 0; i < 4; i++) {
          const res = await get(`${base}/tokens`)
          expect(res.status).toBe(200)
          expect(res.headers['ratelimit']).toBeUndefined()
        }
        const redis = await startPrivateRedis(port)
        try {
          // The API's connection comes back on its own (ioredis retries, up to 2 s apart).
          let limited: BytesResponse | undefined
          const deadline = Date.now() + 20_000
          while (limited === undefined && Date.now() < deadline) {
            const res = await get(`${base}/tokens`)
            if (res.status === 429) limited = res
            else expect(res.status).toBe(200)
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
          expect(limited, 'the limit applied again after Redis came back').toBeDefined()
          expectTooMany(limited!, 1)
        } finally {
          await redis.kill()
        }
      },
      `redis://127.0.0.1:${port}`,
    )
  })
})
