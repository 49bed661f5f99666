import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { addressFor } from './support/factories.js'
import { getJson, startTestApi } from './support/http.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { startPrivateRedis } from './support/private-redis.js'
import { recordingLogger } from './support/recording-logger.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const weth = addressFor('weth')

/**
 * Redis lost while the API serves: a 503 without ioredis's words, logged once per outage,
 * from every read that needs it (GET /technical-analysis: an outage is not its section 7
 * 500). Reads of ClickHouse (swaps, candles) answer on: what they keep follows the change
 * feed, not Redis.
 */
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

  it('Redis unreachable from the start: technical analysis a 503 "service unavailable", swaps from ClickHouse', async () => {
    const api = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const ta = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${weth}`)
      expect(ta.status).toBe(503)
      expect(ta.body).toEqual(UNAVAILABLE)
      const swaps = await getJson(`${api.baseUrl}${swapsPage}`)
      expect(swaps.status).toBe(200)
      expect(swaps.body.result).toEqual([])
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
        expect(ta.status).toBe(503)
        expect(ta.body).toEqual(UNAVAILABLE)
        const swaps = await getJson(`${api.baseUrl}${swapsPage}`)
        expect(swaps.status).toBe(200)
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
  it('Redis unreachable: the series reads come from ClickHouse, technical analysis answers 503', async () => {
    const token = addressOf(0x0e7a9e)
    const last = lastClosedCandleStart(Date.now())
    await insertTokens(rt, [{ address: token, decimals: 18, symbol: 'OUT' }])
    await insertPrices(rt, [
      { address: token, time: last - 2 * CANDLE_MS, price: 10, volume: 5 },
      { address: token, time: last, price: 12, volume: 1 },
    ])
    const api = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const ta = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${token}`)
      expect(ta.status).toBe(503)
      expect(ta.body).toEqual(UNAVAILABLE)
      const byId = await getJson(`${api.baseUrl}/technical-analysis?token_id=${token}`)
      expect(byId.status).toBe(503)
      expect(byId.body).toEqual(UNAVAILABLE)

      const candles = await getJson(`${api.baseUrl}/tokens/${token}/candles?interval=4h`)
      expect(candles.status).toBe(200)
      expect(candles.body.result.map((c: { close: number }) => c.close)).toEqual([10, 10, 12])
      const history = await getJson(`${api.baseUrl}/technical-analysis/history?contract_address=${token}`)
      expect(history.status).toBe(200)
      expect(history.body.pagination.total).toBe(3)
      const historyById = await getJson(`${api.baseUrl}/technical-analysis/history?token_id=${token}`)
      expect(historyById.status).toBe(200)
      expect(historyById.body.pagination.total).toBe(3)
      const unknown = await getJson(`${api.baseUrl}/technical-analysis/history?contract_address=${weth}`)
      expect(unknown.status).toBe(404)
      expect(unknown.body.status).toBe('error')
    } finally {
      await api.close()
    }
  })
})
