import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IndicatorEngine } from '../indicators/engine.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { expectClose, referenceVectors } from './support/ta-reference.js'

/** TA-Lib's output at every index of each reference vector (test/fixtures/ta-lib-history.json). */
interface HistoryVector {
  id: string
  sma50: Array<number | null>
  sma100: Array<number | null>
  sma200: Array<number | null>
  rsi14: Array<number | null>
  macd: Array<number | null>
  macdSignal: Array<number | null>
  macdHistogram: Array<number | null>
}

interface Point {
  candleTime: string
  ma50: number | null
  ma100: number | null
  ma200: number | null
  rsi: number | null
  macd: { macd: number; signal: number; histogram: number } | null
  pivotPoints: Record<string, number> | null
}

const reference = referenceVectors()
const talibHistory: HistoryVector[] = (
  JSON.parse(readFileSync(new URL('./fixtures/ta-lib-history.json', import.meta.url), 'utf8')) as { vectors: HistoryVector[] }
).vectors

describe('GET /technical-analysis/history', () => {
  let rt: TestRuntime
  let api: TestApi
  let redis: Redis
  const now = Date.now()
  const last = lastClosedCandleStart(now)
  const tokens = reference.vectors.map((vector, i) => ({ vector, address: addressOf(0x7a0 + i) }))
  const history = (query: string) => getJson(`${api.baseUrl}/technical-analysis/history?${query}`)
  const everything = `start_time=0&end_time=${now + CANDLE_MS}&limit=1000`

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    redis = createRedis(rt.config.redis.url)
    await insertTokens(rt, tokens.map((t) => ({ address: t.address, decimals: 8, symbol: t.vector.id })))
    // One price per candle, ending with the last closed one; the high and low of each
    // candle differ from its close (two more observations inside the interval).
    await insertPrices(
      rt,
      tokens.flatMap(({ vector, address }) =>
        vector.closes.flatMap((close, i) => {
          const start = last - (vector.closes.length - 1 - i) * CANDLE_MS
          return [
            { address, time: start + 1_000, price: close * 1.01, volume: 2 },
            { address, time: start + 2_000, price: close * 0.98, volume: 3 },
            { address, time: start + 3_000, price: close, volume: 1 },
          ]
        }),
      ),
    )
  })
  afterAll(async () => {
    redis.disconnect()
    await api.close()
    await rt.cleanup()
  })

  it('matches TA-Lib at every candle of every reference vector', async () => {
    for (const [i, { vector, address }] of tokens.entries()) {
      const res = await history(`contract_address=${address}&${everything}`)
      expect(res.status).toBe(200)
      const points: Point[] = res.body.result
      expect(res.body.pagination).toEqual({ total: vector.closes.length, limit: 1000, offset: 0 })
      expect(points).toHaveLength(vector.closes.length)
      const talib = talibHistory[i]!
      expect(talib.id).toBe(vector.id)
      points.forEach((point, k) => {
        expect(point.candleTime).toBe(new Date(last - (vector.closes.length - 1 - k) * CANDLE_MS).toISOString())
        expectClose(point.ma50, talib.sma50[k]!)
        expectClose(point.ma100, talib.sma100[k]!)
        expectClose(point.ma200, talib.sma200[k]!)
        expectClose(point.rsi, talib.rsi14[k]!)
        expectClose(point.macd?.macd ?? null, talib.macd[k]!)
        expectClose(point.macd?.signal ?? null, talib.macdSignal[k]!)
        expectClose(point.macd?.histogram ?? null, talib.macdHistogram[k]!)
        if (k < 5) expect(point.pivotPoints).toBeNull()
      })
      // The pivots of a point: the six candles ending at it.
      const k = 40
      const day = vector.closes.slice(k - 5, k + 1)
      const high = Math.max(...day.map((c) => c * 1.01))
      const low = Math.min(...day.map((c) => c * 0.98))
      expectClose(points[k]!.pivotPoints!.dailyHigh!, high)
      expectClose(points[k]!.pivotPoints!.dailyLow!, low)
      expectClose(points[k]!.pivotPoints!.dailyClose!, vector.closes[k]!)
      expectClose(points[k]!.pivotPoints!.volume24!, 36)
      expectClose(points[k]!.pivotPoints!.keyLevel!, (high + low + vector.closes[k]!) / 3)
    }
  })

  it('its last point is the cached GET /technical-analysis result (by address and by token_id)', async () => {
    const engine = new IndicatorEngine({ clickhouse: rt.clickhouse, tables: rt.tables, redis, redisPrefix: rt.config.redis.prefix, logger: rt.logger, clock: () => now })
    await engine.recomputeAll()
    for (const { address } of tokens) {
      const cached = await getJson(`${api.baseUrl}/technical-analysis?contract_address=${address}`)
      expect(cached.status).toBe(200)
      const expected = cached.body.result
      for (const target of [`contract_address=${address.toUpperCase().replace('0X', '0x')}`, `token_id=${address}`]) {
        const res = await history(`${target}&start_time=${last}&end_time=${last}`)
        expect(res.status, target).toBe(200)
        expect(res.body.pagination).toEqual({ total: 1, limit: 50, offset: 0 })
        const [point] = res.body.result as Point[]
        expect(Object.keys(point!)).toEqual(['candleTime', 'ma50', 'ma100', 'ma200', 'rsi', 'macd', 'pivotPoints'])
        expect(point!.candleTime).toBe(new Date(last).toISOString())
        for (const name of ['ma50', 'ma100', 'ma200', 'rsi'] as const) expectClose(point![name], expected[name])
        for (const name of ['macd', 'signal', 'histogram'] as const) expectClose(point!.macd?.[name] ?? null, expected.macd?.[name] ?? null)
        expect(Object.keys(point!.pivotPoints!)).toEqual(Object.keys(expected.pivotPoints))
        for (const [name, value] of Object.entries(expected.pivotPoints as Record<string, number>)) {
          expectClose(point!.pivotPoints![name]!, value)
        }
      }
    }
  })

  it('pages the range like the other lists, and serves the latest points without a range', async () => {
    const { vector, address } = tokens[2]! // 60 candles
    const start = last - 20 * CANDLE_MS
    const seen: string[] = []
    for (let offset = 0; offset < 21; offset += 8) {
      const res = await history(`contract_address=${address}&start_time=${start}&end_time=${last + CANDLE_MS - 1}&limit=8&offset=${offset}`)
      expect(res.body.pagination).toEqual({ total: 21, limit: 8, offset })
      seen.push(...(res.body.result as Point[]).map((p) => p.candleTime))
    }
    expect(seen).toEqual(Array.from({ length: 21 }, (_, i) => new Date(start + i * CANDLE_MS).toISOString()))

    const latest = await history(`contract_address=${address}&limit=3`)
    expect(latest.body.pagination).toEqual({ total: vector.closes.length, limit: 3, offset: 0 })
    expect((latest.body.result as Point[]).map((p) => p.candleTime)).toEqual(
      [2, 1, 0].map((back) => new Date(last - back * CANDLE_MS).toISOString()),
    )
    const beforeHistory = await history(`contract_address=${address}&start_time=0&end_time=${last - 60 * CANDLE_MS}`)
    expect(beforeHistory.body).toEqual({ status: 'success', result: [], pagination: { total: 0, limit: 50, offset: 0 } })
  })

  it('answers bad requests with a 400 and unknown tokens with a 404', async () => {
    const address = tokens[0]!.address
    const cases: Array<[string, number, RegExp]> = [
      ['start_time=0&end_time=1', 400, /token_id or contract_address is required/],
      [`contract_address=${address}&token_id=${address}`, 400, /either token_id or contract_address/],
      ['contract_address=0x12', 400, /contract_address must be/],
      [`contract_address=${address}&start_time=1`, 400, /end_time is required/],
      [`contract_address=${address}&start_time=5&end_time=1`, 400, /must not be after end_time/],
      [`contract_address=${address}&limit=1001`, 400, /limit must be an integer from 1 to 1000/],
      [`contract_address=${addressOf(0xdead)}`, 404, /No token with contract address 0x0+dead/],
      ['token_id=nobody', 404, /No token with id "nobody"/],
    ]
    for (const [query, status, message] of cases) {
      const res = await history(query)
      expect(res.status, query).toBe(status)
      expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(message) })
    }
  })
})
