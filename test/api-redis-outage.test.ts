import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor } from './support/factories.js'
import { getJson, startTestApi } from './support/http.js'
import { startPrivateRedis } from './support/private-redis.js'
import { recordingLogger } from './support/recording-logger.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const weth = addressFor('weth')

/** Redis lost while the API serves: a 503 without ioredis's words, logged once per outage. */
describe('Redis down while the API serves', () => {
  let rt: TestRuntime

  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('Redis unreachable from the start: GET /technical-analysis is a 503 "service unavailable"', async () => {
    const api = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
      expect(status).toBe(503)
      expect(body).toEqual({ status: 'error', message: 'service unavailable' })
    } finally {
      await api.close()
    }
  })

  it('Redis killed mid-service: 503s with no ioredis internals, the outage logged once, /ready 503', async () => {
    const redis = await startPrivateRedis()
    const logger = recordingLogger()
    const api = await startTestApi({ ...rt, logger }, { redisUrl: redis.url })
    try {
      // Serving: Redis answers (no cached result for this unknown token: a 404 from the route).
      const before = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
      expect(before.status).toBe(404)
      expect((await getJson(`${api.baseUrl}/ready`)).status).toBe(200)

      await redis.kill()
      for (let i = 0; i < 3; i++) {
        const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
        expect(status).toBe(503)
        expect(body).toEqual({ status: 'error', message: 'service unavailable' })
      }
      const ready = await getJson(`${api.baseUrl}/ready`)
      expect(ready.status).toBe(503)
      expect(ready.body.message).toContain('redis is unreachable')
      expect(JSON.stringify(ready.body)).not.toMatch(/ECONNREFUSED|maxRetriesPerRequest/)

      const outageLines = logger.lines.filter((l) => l.msg === 'redis unavailable')
      expect(outageLines).toHaveLength(1)
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([])
    } finally {
      await api.close()
      await redis.kill()
    }
  })
})
