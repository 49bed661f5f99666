import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor } from './support/factories.js'
import { getJson, startTestApi } from './support/http.js'
import { startPrivateRedis } from './support/private-redis.js'
import { recordingLogger } from './support/recording-logger.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const weth = addressFor('weth')

/**
 * Redis lost while the API serves: a 503 without ioredis's words, logged once per outage;
 * GET /technical-analysis keeps the 500 and message prefix of the interface's section 7.
 */
const TA_UNAVAILABLE = { status: 'error', message: 'Error fetching technical analysis data: service unavailable' }
const UNAVAILABLE = { status: 'error', message: 'service unavailable' }
const swapsPage = '/swap-transactions?start_time=0&end_time=1000'
describe('Redis down while the API serves', () => {
  let rt: TestRuntime

  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('Redis unreachable from the start: a 503 "service unavailable" (technical analysis: its 500)', async () => {
    const api = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const ta = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
      expect(ta.status).toBe(500)
      expect(ta.body).toEqual(TA_UNAVAILABLE)
      const swaps = await getJson(`${api.baseUrl}${swapsPage}`)
      expect(swaps.status).toBe(503)
      expect(swaps.body).toEqual(UNAVAILABLE)
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
        const ta = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
        expect(ta.status).toBe(500)
        expect(ta.body).toEqual(TA_UNAVAILABLE)
        const swaps = await getJson(`${api.baseUrl}${swapsPage}`)
        expect(swaps.status).toBe(503)
        expect(swaps.body).toEqual(UNAVAILABLE)
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
