import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IndicatorJobNames, QueueNames } from '../shared/queues.js'
import { createRedis } from '../shared/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

interface ErrorBody {
  status: string
  message: string
}

/** Every recompute-token job the indicators queue holds or has finished. */
async function recomputeTokenJobs(queue: Queue): Promise<number> {
  const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'])
  return jobs.filter((job) => job.name === IndicatorJobNames.recomputeToken).length
}

describe('GET /technical-analysis on demand under load', () => {
  let rt: TestRuntime
  let api: TestApi
  let queue: Queue
  let engine: RunningRole
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)

  beforeAll(async () => {
    rt = await createTestRuntime({ CANDLE_REFRESH_MS: '0' })
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
    expect(await recomputeTokenJobs(queue)).toBeLessThanOrEqual(1)

    // Answered from memory for TA_NEGATIVE_CACHE_MS: the same 404, no new job.
    const later = await Promise.all(Array.from({ length: 20 }, () => getJson<ErrorBody>(url)))
    for (const response of later) expect(response.body.message).toBe(expected)
    expect(await recomputeTokenJobs(queue)).toBeLessThanOrEqual(1)

    const maxListeners = warnings.filter((w) => w.name === 'MaxListenersExceededWarning')
    expect(maxListeners.map((w) => w.message)).toEqual([])
  })
})
