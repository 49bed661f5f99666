import { Queue, Worker } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IndicatorJobNames, QueueNames, type IndicatorJobData, type IndicatorJobResult } from '../shared/platform/queues.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { technicalAnalysisKey, writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { addressFor, insertPrices, insertTokens, mixedCase, sampleTechnicalAnalysis } from './support/factories.js'
import { getJson, getJsonWithBody, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const WAIT_MS = 400

describe('GET /technical-analysis', () => {
  let rt: TestRuntime
  let api: TestApi
  let redis: Redis
  const weth = addressFor('weth')
  const custom = addressFor('custom')
  const uncached = addressFor('uncached') // known token, nothing cached, no worker
  const priceOnly = addressFor('price-only') // no metadata, but price observations

  beforeAll(async () => {
    rt = await createTestRuntime({ TA_ON_DEMAND_WAIT_MS: String(WAIT_MS) })
    api = await startTestApi(rt)
    redis = createRedis(rt.config.redis.url)
    await insertTokens(rt, [
      { contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 },
      { contract_address: custom, id: 'custom-token', name: 'Custom', symbol: 'CUS', decimals: 2 },
      { contract_address: uncached, name: 'Uncached', symbol: 'UNC', decimals: 6 },
    ])
    await insertPrices(rt, [{ contract_address: priceOnly, timestamp: Date.UTC(2025, 0, 1), price_usd: 1.5 }])
    await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: weth, name: 'Wrapped Ether', symbol: 'WETH' }))
    await writeTechnicalAnalysis(
      redis,
      rt.config.redis.prefix,
      sampleTechnicalAnalysis({ contractAddress: custom, id: 'custom-token', name: 'Custom', symbol: 'CUS', decimals: 2 }),
    )
  })
  afterAll(async () => {
    await api?.close()
    redis?.disconnect()
    await rt?.cleanup()
  })

  const expectedWeth = {
    status: 'success',
    message: 'Technical analysis data fetched successfully',
    result: {
      pivotPoints: {
        keyLevel: 101.5, Resistance1: 103, Support1: 100, Resistance2: 104.5, Support2: 98.5,
        dailyHigh: 103, dailyLow: 100, dailyClose: 101.5, volume24: 123456.78,
      },
      ma50: 99.25,
      ma100: 98.125,
      ma200: null,
      rsi: 55.123456789,
      macd: { macd: 0.5, signal: 0.25, histogram: 0.25 },
      timestamp: '2025-02-01T04:01:00.000Z',
      token: { id: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, contractAddress: weth },
      // Beside the interface's fields: the last closed candle the values come from, and how many.
      candleTime: '2025-02-01T00:00:00.000Z',
      candleCount: 180,
    },
  }

  it('serves the cached result by contract_address (query string, any case)', async () => {
    for (const spelling of [weth, mixedCase(weth)]) {
      const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${spelling}`)
      expect(status).toBe(200)
      expect(body).toEqual(expectedWeth)
    }
  })

  it('serves it by token_id: the derived id and a producer-supplied id', async () => {
    let r = await getJson(`${api.baseUrl}/technical-analysis?token_id=${weth}`)
    expect(r.status).toBe(200)
    expect(r.body).toEqual(expectedWeth)
    r = await getJson(`${api.baseUrl}/technical-analysis?token_id=custom-token`)
    expect(r.status).toBe(200)
    expect(r.body.result.token).toEqual({ id: 'custom-token', name: 'Custom', symbol: 'CUS', decimals: 2, contractAddress: custom })
  })

  it('takes the parameters from a JSON body too', async () => {
    let r = await getJsonWithBody(`${api.baseUrl}/technical-analysis`, { contract_address: mixedCase(weth) })
    expect(r.status).toBe(200)
    expect(r.body).toEqual(expectedWeth)
    r = await getJsonWithBody(`${api.baseUrl}/technical-analysis`, { token_id: 'custom-token' })
    expect(r.status).toBe(200)
    expect(r.body.result.token.contractAddress).toBe(custom)
  })

  it('shows the current token metadata even if the cached result predates it', async () => {
    const stale = sampleTechnicalAnalysis({ contractAddress: addressFor('late-meta'), name: null, symbol: null, decimals: null })
    await writeTechnicalAnalysis(redis, rt.config.redis.prefix, stale)
    let r = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${addressFor('late-meta')}`)
    expect(r.body.result.token).toEqual({ id: addressFor('late-meta'), name: null, symbol: null, decimals: null, contractAddress: addressFor('late-meta') })
    await insertTokens(rt, [{ contract_address: addressFor('late-meta'), name: 'Late', symbol: 'LATE', decimals: 9 }])
    r = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${addressFor('late-meta')}`)
    expect(r.body.result.token).toEqual({ id: addressFor('late-meta'), name: 'Late', symbol: 'LATE', decimals: 9, contractAddress: addressFor('late-meta') })
  })

  it('400 when neither parameter is given', async () => {
    for (const r of [
      await getJson(`${api.baseUrl}/technical-analysis`),
      await getJsonWithBody(`${api.baseUrl}/technical-analysis`, {}),
      await getJson(`${api.baseUrl}/technical-analysis?token_id=`),
    ]) {
      expect(r.status).toBe(400)
      expect(r.body).toEqual({ status: 'error', message: 'token_id or contract_address is required' })
    }
  })

  it('400 when both are given (query, body, or one in each)', async () => {
    for (const r of [
      await getJson(`${api.baseUrl}/technical-analysis?token_id=${weth}&contract_address=${weth}`),
      await getJsonWithBody(`${api.baseUrl}/technical-analysis`, { token_id: weth, contract_address: weth }),
      await getJsonWithBody(`${api.baseUrl}/technical-analysis?token_id=${weth}`, { contract_address: weth }),
    ]) {
      expect(r.status).toBe(400)
      expect(r.body).toEqual({ status: 'error', message: 'Give either token_id or contract_address, not both' })
    }
  })

  it('400 for a malformed address, a non-string body value, a non-object body, malformed JSON', async () => {
    let r = await getJson(`${api.baseUrl}/technical-analysis?contract_address=0x1234`)
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('contract_address must be "0x" followed by 40 hexadecimal characters')
    r = await getJsonWithBody(`${api.baseUrl}/technical-analysis`, { contract_address: 42 })
    expect(r.status).toBe(400)
    expect(r.body.message).toBe('contract_address in the request body must be a string')
    r = await getJsonWithBody(`${api.baseUrl}/technical-analysis`, [weth])
    expect(r.status).toBe(400)
    expect(r.body.status).toBe('error')
    r = await getJson(`${api.baseUrl}/technical-analysis`, { headers: { 'content-type': 'application/json' }, body: '{"token_id":' })
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('not valid JSON')
  })

  it('404 for an unknown token', async () => {
    const unknown = addressFor('unknown')
    let r = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${unknown}`)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ status: 'error', message: `No token with contract address ${unknown}` })
    r = await getJson(`${api.baseUrl}/technical-analysis?token_id=nope`)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ status: 'error', message: 'No token with id "nope"' })
  })

  it('no cached result and no engine: asks on demand, then 404 saying why', async () => {
    const started = Date.now()
    const r = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${uncached}`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 50)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({
      status: 'error',
      message: `No technical analysis is available yet for token ${uncached}: the computation did not finish within ${WAIT_MS} ms`,
    })
    const queue = new Queue<IndicatorJobData['recompute-token']>(QueueNames.indicators, {
      connection: createRedis(rt.config.redis.url, 'bullmq'),
      prefix: rt.config.redis.prefix,
    })
    try {
      // Two more concurrent requests share the one waiting job.
      await Promise.all([
        getJson(`${api.baseUrl}/technical-analysis?contract_address=${uncached}`),
        getJson(`${api.baseUrl}/technical-analysis?token_id=${uncached}`),
      ])
      const waiting = await queue.getJobs(['waiting'])
      const mine = waiting.filter((j) => j.data.contract_address === uncached)
      expect(mine).toHaveLength(1)
      expect(mine[0]!.name).toBe(IndicatorJobNames.recomputeToken)
      await queue.obliterate({ force: true })
    } finally {
      await queue.close()
    }
  })

  describe('with an indicator worker answering the on-demand job', () => {
    let worker: Worker<IndicatorJobData['recompute-token'], IndicatorJobResult>
    let workerRedis: Redis
    const computed: string[] = []

    beforeAll(async () => {
      workerRedis = createRedis(rt.config.redis.url, 'bullmq')
      // A stand-in for the indicator engine's worker: it writes a result for the
      // price-only token and reports why it cannot for the others.
      worker = new Worker(
        QueueNames.indicators,
        async (job) => {
          const address = job.data.contract_address
          computed.push(address)
          if (address !== priceOnly) return { written: 0, reason: 'the token has no candles' }
          await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: address, name: null, symbol: null, decimals: null }))
          return { written: 1 }
        },
        { connection: workerRedis, prefix: rt.config.redis.prefix },
      )
      await worker.waitUntilReady()
    })
    afterAll(async () => {
      await worker?.close()
      workerRedis?.disconnect()
    })

    it('serves the result the on-demand computation wrote (a token without metadata)', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${priceOnly}`)
      expect(status).toBe(200)
      expect(body.result.token).toEqual({ id: priceOnly, name: null, symbol: null, decimals: null, contractAddress: priceOnly })
      expect(computed).toContain(priceOnly)
    })

    it('404 with the reason the engine gave', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?token_id=${uncached}`)
      expect(status).toBe(404)
      expect(body).toEqual({
        status: 'error',
        message: `No technical analysis is available yet for token ${uncached}: the token has no candles`,
      })
    })
  })

  it('500 when the cached result cannot be read, with the message of section 7 (a Redis outage is a 503)', async () => {
    const corrupt = addressFor('corrupt')
    await redis.set(technicalAnalysisKey(rt.config.redis.prefix, corrupt), '{"not":"a result"')
    const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${corrupt}`)
    expect(status).toBe(500)
    expect(body.status).toBe('error')
    expect(body.message).toMatch(/^Error fetching technical analysis data: .+/)
  })
})
