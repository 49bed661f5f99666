import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IndicatorJobNames, QueueNames } from '../shared/platform/queues.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import type { RunningRole } from '../shared/runtime.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { sampleTechnicalAnalysis } from './support/factories.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

interface ErrorBody {
  status: string
  message: string
}

/** The recompute-token jobs of one token the indicators queue holds or has finished. */
async function recomputeTokenJobs(queue: Queue, address: string): Promise<number> {
  const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'])
  return jobs.filter((job) => job.name === IndicatorJobNames.recomputeToken && job.data.contract_address === address).length
}

function hourlyPrices(address: string, candles: number) {
  const end = lastClosedCandleStart(Date.now())
  return Array.from({ length: candles }, (_, i) => ({ address, time: end - (candles - 1 - i) * CANDLE_MS + 60_000, price: 100 + i, volume: 1 }))
}

describe('GET /technical-analysis on demand under load', () => {
  let rt: TestRuntime
  let api: TestApi
  let queue: Queue
  let engine: RunningRole
  let redis: Redis
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)

  beforeAll(async () => {
    rt = await createTestRuntime({ CANDLE_REFRESH_MS: '0' })
    redis = createRedis(rt.config.redis.url)
    queue = new Queue(QueueNames.indicators, { connection: createRedis(rt.config.redis.url, 'bullmq'), prefix: rt.config.redis.prefix })
    engine = await startIndicatorsRole(rt)
    api = await startTestApi(rt, { onDemandWaitMs: 10_000 })
    process.on('warning', onWarning)
  })
  afterAll(async () => {
    process.off('warning', onWarning)
    await api.close()
    await engine.stop()
    await queue.close()
    redis.disconnect()
    await rt.cleanup()
  })

  it('100 concurrent requests for a known token without candles share one job, and later ones reuse its answer', async () => {
    const address = addressOf(9_001)
    await insertTokens(rt, [{ address, decimals: 18, symbol: 'NOCANDLE' }])
    const url = `${api.baseUrl}/technical-analysis?contract_address=${address}`
    const expected = `No technical analysis is available yet for token ${address}: the token has no closed 4-hour candles yet`

    const responses = await Promise.all(Array.from({ length: 100 }, () => getJson<ErrorBody>(url)))
    for (const response of responses) {
      expect(response.status).toBe(404)
      expect(response.body.message).toBe(expected)
    }
    expect(await recomputeTokenJobs(queue, address)).toBeLessThanOrEqual(1)

    // Answered from memory for TA_NEGATIVE_CACHE_MS: the same 404, no new job.
    const later = await Promise.all(Array.from({ length: 20 }, () => getJson<ErrorBody>(url)))
    for (const response of later) expect(response.body.message).toBe(expected)
    expect(await recomputeTokenJobs(queue, address)).toBeLessThanOrEqual(1)

    const maxListeners = warnings.filter((w) => w.name === 'MaxListenersExceededWarning')
    expect(maxListeners.map((w) => w.message)).toEqual([])

    // Remembered only as long as nothing is cached: a result written meanwhile is served.
    await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: address }))
    expect((await getJson(url)).status).toBe(200)
  })

  it('100 concurrent requests for a token with candles and no cached result: one job, every request served', async () => {
    const address = addressOf(9_002)
    await insertTokens(rt, [{ address, decimals: 18, symbol: 'FRESH' }])
    await insertPrices(rt, hourlyPrices(address, 40))
    const url = `${api.baseUrl}/technical-analysis?contract_address=${address}`
    const responses = await Promise.all(Array.from({ length: 100 }, () => getJson<{ result: { token: { symbol: string } } }>(url)))
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 200))
    expect(responses.every((r) => r.body.result.token.symbol === 'FRESH')).toBe(true)
    expect(await recomputeTokenJobs(queue, address)).toBe(1)
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})
