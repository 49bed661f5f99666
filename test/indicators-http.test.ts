import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { IndicatorJobNames, QueueNames } from '../shared/platform/queues.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { technicalAnalysisKey } from '../shared/candles/technical-analysis.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { IndicatorEngine } from '../indicators/engine.js'
import { startIngestRole } from '../ingest/role.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { expectClose, referenceVectors } from './support/ta-reference.js'

const reference = referenceVectors()
const SCHEDULE_DELAY_MS = 90_000

function closesAsPrices(address: string, closes: number[], now: number) {
  const end = lastClosedCandleStart(now)
  return closes.map((price, i) => ({ address, time: end - (closes.length - 1 - i) * CANDLE_MS + 60_000, price, volume: 1 }))
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('indicator engine behind GET /technical-analysis', () => {
  let rt: TestRuntime
  let redis: Redis
  let api: TestApi
  let queue: Queue
  const roles: RunningRole[] = []

  beforeAll(async () => {
    rt = await createTestRuntime({ INDICATORS_SCHEDULE_DELAY_MS: String(SCHEDULE_DELAY_MS) })
    redis = createRedis(rt.config.redis.url)
    queue = new Queue(QueueNames.indicators, { connection: createRedis(rt.config.redis.url, 'bullmq'), prefix: rt.config.redis.prefix })
    api = await startTestApi(rt, { onDemandWaitMs: 10_000 })
  })
  afterAll(async () => {
    for (const role of roles.reverse()) await role.stop()
    await api.close()
    await queue.close()
    redis.disconnect()
    await rt.cleanup()
  })

  it('serves the TA-Lib values of every reference vector, fed through ingestion, over HTTP', async () => {
    const now = Date.now()
    const tokens = reference.vectors.map((v, i) => ({ vector: v, address: addressOf(500 + i) }))
    // The real ingestion path: producer -> queue -> ingest worker -> ClickHouse.
    const ingest = await startIngestRole(rt)
    const producer = new IngestProducer(rt.config)
    try {
      const jobIds = [
        await producer.send(
          'token',
          tokens.map((t) => ({ contract_address: t.address, name: t.vector.id, symbol: t.vector.id, decimals: 8 })),
        ),
      ]
      for (const t of tokens) {
        const prices = closesAsPrices(t.address, t.vector.closes, now).map((p) => ({
          contract_address: p.address,
          timestamp: p.time,
          price_usd: p.price,
          volume_usd: p.volume,
        }))
        jobIds.push(await producer.send('price', prices))
        jobIds.push(await producer.send('price', prices.slice(-10))) // re-delivered: counted once
      }
      await until(async () => {
        const states = await Promise.all(jobIds.map((id) => producer.queue.getJobState(id)))
        return states.every((s) => s === 'completed')
      }, 30_000)
    } finally {
      await producer.close()
      await ingest.stop()
    }
    const engine = new IndicatorEngine({ clickhouse: rt.clickhouse, tables: rt.tables, redis, redisPrefix: rt.config.redis.prefix, logger: rt.logger, clock: () => now })
    expect((await engine.recomputeAll()).written).toBe(tokens.length)
    for (const { vector, address } of tokens) {
      const res = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${address}`)
      expect(res.status).toBe(200)
      expect(res.body.status).toBe('success')
      const r = res.body.result
      expectClose(r.ma50, vector.expected.sma50)
      expectClose(r.ma100, vector.expected.sma100)
      expectClose(r.ma200, vector.expected.sma200)
      expectClose(r.rsi, vector.expected.rsi14)
      expectClose(r.macd.macd, vector.expected.macd)
      expectClose(r.macd.signal, vector.expected.macdSignal)
      expectClose(r.macd.histogram, vector.expected.macdHistogram)
      expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(r.token).toEqual({ id: address, name: vector.id, symbol: vector.id, decimals: 8, contractAddress: address })
    }
  })

  it('the scheduler exists once, however many engines start, and fires after each 4-hour boundary', async () => {
    roles.push(await startIndicatorsRole(rt))
    roles.push(await startIndicatorsRole(rt)) // a restart, or a second engine process
    const schedulers = await queue.getJobSchedulers()
    expect(schedulers).toHaveLength(1)
    expect(schedulers[0]).toMatchObject({ name: IndicatorJobNames.advance, every: CANDLE_MS })
    expect(schedulers[0]!.next! % CANDLE_MS).toBe(SCHEDULE_DELAY_MS)
    expect(schedulers[0]!.next!).toBeGreaterThan(Date.now())
    const delayed = (await queue.getDelayed()).filter((j) => j.name === IndicatorJobNames.advance)
    expect(delayed).toHaveLength(1)
  })

  it('on demand: no cached result → a recompute-token job → the result', async () => {
    // The engines started above ran their start-up recompute-all: wait until they are idle.
    await until(async () => {
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized')
      return (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0) === 0
    })
    const address = addressOf(600)
    await insertTokens(rt, [{ address, decimals: 18, symbol: 'ODM' }])
    const vector = reference.vectors[1]!
    await insertPrices(rt, closesAsPrices(address, vector.closes, Date.now()))
    expect(await redis.exists(technicalAnalysisKey(rt.config.redis.prefix, address))).toBe(0)
    const res = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${address}`)
    expect(res.status).toBe(200)
    expectClose(res.body.result.ma200, vector.expected.sma200)
    expectClose(res.body.result.macd.macd, vector.expected.macd)
    const completed = await queue.getCompleted()
    const onDemand = completed.find((j) => j.name === IndicatorJobNames.recomputeToken && j.data.contract_address === address)
    expect(onDemand).toBeDefined()
    // The same attempts as the scheduled step's jobs.
    const scheduled = (await queue.getDelayed()).find((j) => j.name === IndicatorJobNames.advance)
    expect(onDemand!.opts.attempts).toBeGreaterThan(1)
    expect(onDemand!.opts.attempts).toBe(scheduled!.opts.attempts)
  })

  it('a known token without candles: 404 saying why', async () => {
    const address = addressOf(601)
    await insertTokens(rt, [{ address, decimals: 18 }])
    const res = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${address}`)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ status: 'error', message: expect.stringContaining('no closed 4-hour candles') })
  })

  it('Redis unreachable: the 503 every read gives while a dependency is down', async () => {
    const broken = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const res = await getJson(`${broken.baseUrl}/technical-analysis?contract_address=${addressOf(500)}`)
      expect(res.status).toBe(503)
      expect(res.body.status).toBe('error')
      expect(res.body.message).toMatch(/service unavailable/i)
    } finally {
      await broken.close()
    }
  })
})
