import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { QueueNames } from '../shared/platform/queues.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { readTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { recomputeAllAfterIngestJobs } from '../indicators/recompute-after-ingest.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { startIngestRole } from '../ingest/role.js'
import { addressOf } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/** The engine's clock: fixed, so no run can cross a 4-hour boundary. */
const NOW = Date.UTC(2026, 5, 1, 13, 30)

describe('npm start: a recompute of every token once data loaded at start is ingested', () => {
  let rt: TestRuntime
  let redis: Redis
  const roles: RunningRole[] = []

  beforeAll(async () => {
    rt = await createTestRuntime()
    redis = createRedis(rt.config.redis.url)
    roles.push(await startIngestRole(rt), await startIndicatorsRole(rt, { clock: () => NOW }))
    // Let the engine's own start-up recompute finish first, so only the one under test can write.
    const connection = createRedis(rt.config.redis.url, 'bullmq')
    const queue = new Queue(QueueNames.indicators, { connection, prefix: rt.config.redis.prefix })
    try {
      for (;;) {
        const counts = await queue.getJobCounts('waiting', 'active', 'prioritized')
        if ((counts.waiting ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0) === 0) break
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      await queue.close()
      connection.disconnect()
    }
  })
  afterAll(async () => {
    for (const role of roles.reverse()) await role.stop()
    redis.disconnect()
    await rt.cleanup()
  })

  it('enqueues recompute-all after the ingest jobs finish, and the engine writes every token', async () => {
    const last = lastClosedCandleStart(NOW)
    const tokens = [addressOf(0x71), addressOf(0x72)]
    const producer = new IngestProducer(rt.config)
    let jobIds: string[]
    try {
      jobIds = [
        await producer.send('token', tokens.map((a, i) => ({ contract_address: a, name: `T${i}`, symbol: `T${i}`, decimals: 6 }))),
        ...(await Promise.all(
          tokens.map((a) =>
            producer.send(
              'price',
              Array.from({ length: 50 }, (_, i) => ({ contract_address: a, timestamp: last - i * CANDLE_MS, price_usd: 1 + (i % 7) / 10 })),
            ),
          ),
        )),
      ]
    } finally {
      await producer.close()
    }
    await recomputeAllAfterIngestJobs(rt, jobIds, 30_000)
    const deadline = Date.now() + 20_000
    for (const address of tokens) {
      let ta = await readTechnicalAnalysis(redis, rt.config.redis.prefix, address)
      while (ta === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
        ta = await readTechnicalAnalysis(redis, rt.config.redis.prefix, address)
      }
      expect(ta?.candleCount).toBe(50)
      expect(ta?.token.symbol).toMatch(/^T\d$/)
    }
  })

  it('a late record that changes a closed candle reaches the cached indicators with no manual step (bench:freshness measures how fast)', async () => {
    const last = lastClosedCandleStart(NOW)
    const token = addressOf(0x71)
    const before = await readTechnicalAnalysis(redis, rt.config.redis.prefix, token)
    expect(before?.candleTime).toBe(last)
    const producer = new IngestProducer(rt.config)
    let acknowledged: number
    try {
      const id = await producer.send('price', [{ contract_address: token, timestamp: last + CANDLE_MS - 1, price_usd: 123.25 }])
      const connection = createRedis(rt.config.redis.url, 'bullmq')
      const ingest = new Queue(QueueNames.ingest, { connection, prefix: rt.config.redis.prefix })
      try {
        for (;;) {
          const state = await ingest.getJobState(id)
          if (state === 'completed') break
          expect(state).not.toBe('failed')
          await new Promise((r) => setTimeout(r, 20))
        }
      } finally {
        await ingest.close()
        connection.disconnect()
      }
      acknowledged = Date.now()
    } finally {
      await producer.close()
    }
    let ta = await readTechnicalAnalysis(redis, rt.config.redis.prefix, token)
    while (ta?.pivotPoints?.dailyClose !== 123.25 && Date.now() - acknowledged < 30_000) {
      await new Promise((r) => setTimeout(r, 50))
      ta = await readTechnicalAnalysis(redis, rt.config.redis.prefix, token)
    }
    expect(ta?.pivotPoints?.dailyClose).toBe(123.25)
    expect(ta?.candleTime).toBe(last)
    expect(ta?.candleCount).toBe(50)
  })
})
