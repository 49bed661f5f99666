import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('GET /tokens/:contract_address/candles', () => {
  let rt: TestRuntime
  let api: TestApi
  const token = addressOf(0xabcdef)
  let last: number
  let url: (query: string, address?: string) => string

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    last = lastClosedCandleStart(Date.now())
    await insertTokens(rt, [{ address: token, decimals: 18, symbol: 'CDL' }])
    // Candles at last-9, last-8 (two observations) and last-5; gaps in between and after;
    // one observation in the interval in progress (left out).
    await insertPrices(rt, [
      { address: token, time: last - 9 * CANDLE_MS, price: 10, volume: 5 },
      { address: token, time: last - 8 * CANDLE_MS + 1, price: 12, volume: 1 },
      { address: token, time: last - 8 * CANDLE_MS + 2, price: 11, volume: 2 },
      { address: token, time: last - 5 * CANDLE_MS, price: 13 },
      { address: token, time: last + CANDLE_MS + 1, price: 99, volume: 1 },
    ])
    url = (query, address = token) => `${api.baseUrl}/tokens/${address}/candles?${query}`
  })
  afterAll(async () => {
    await api.close()
    await rt.cleanup()
  })

  it('returns the closed candles in the range, oldest first, gaps filled, time in ms', async () => {
    const res = await getJson(url(`start_time=0&end_time=${Date.now() + 10 * CANDLE_MS}`))
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('success')
    expect(res.body.pagination).toEqual({ total: 10, limit: 50, offset: 0 })
    const rows = res.body.result
    expect(rows.map((r: { time: number }) => r.time)).toEqual(Array.from({ length: 10 }, (_, i) => last - (9 - i) * CANDLE_MS))
    expect(rows[0]).toEqual({ time: last - 9 * CANDLE_MS, open: 10, high: 10, low: 10, close: 10, volume: 5 })
    expect(rows[1]).toEqual({ time: last - 8 * CANDLE_MS, open: 12, high: 12, low: 11, close: 11, volume: 3 })
    expect(rows[2]).toEqual({ time: last - 7 * CANDLE_MS, open: 11, high: 11, low: 11, close: 11, volume: 0 })
    expect(rows[9]).toEqual({ time: last, open: 13, high: 13, low: 13, close: 13, volume: 0 })
  })

  it('adds the candle in progress, as it stands, with in_progress=true', async () => {
    const res = await getJson(url('in_progress=true&limit=2'))
    expect(res.status).toBe(200)
    expect(res.body.pagination.total).toBe(11)
    expect(res.body.result).toEqual([
      { time: last, open: 13, high: 13, low: 13, close: 13, volume: 0 },
      { time: last + CANDLE_MS, open: 99, high: 99, low: 99, close: 99, volume: 1 },
    ])
    const closed = await getJson(url('in_progress=false&limit=1'))
    expect(closed.body.result.map((r: { time: number }) => r.time)).toEqual([last])
    const bad = await getJson(url('in_progress=yes'))
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ status: 'error', message: expect.stringMatching(/in_progress must be true or false/) })
  })

  it('filters by candle start time, both ends inclusive, and pages through the range once', async () => {
    const start = last - 8 * CANDLE_MS
    const end = last - 2 * CANDLE_MS
    const seen: number[] = []
    for (let offset = 0; offset < 7; offset += 3) {
      const res = await getJson(url(`start_time=${start}&end_time=${end}&limit=3&offset=${offset}`))
      expect(res.body.pagination).toEqual({ total: 7, limit: 3, offset })
      seen.push(...res.body.result.map((r: { time: number }) => r.time))
    }
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => start + i * CANDLE_MS))
  })

  it('accepts a mixed-case address', async () => {
    const mixed = '0x' + [...token.slice(2)].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')
    const res = await getJson(url(`start_time=0&end_time=${Date.now()}&limit=1`, mixed))
    expect(res.status).toBe(200)
    expect(res.body.pagination.total).toBe(10)
  })

  it('answers malformed requests with a 400 naming the parameter', async () => {
    const cases: Array<[string, string | undefined, RegExp]> = [
      [`end_time=1`, undefined, /start_time is required/],
      [`start_time=1`, undefined, /end_time is required/],
      [`start_time=abc&end_time=1`, undefined, /start_time/],
      [`start_time=5&end_time=1`, undefined, /start_time .* must not be after end_time/],
      [`start_time=0&end_time=1&limit=1001`, undefined, /limit/], // at most 1,000 here (was 500)
      [`start_time=0&end_time=1&offset=-1`, undefined, /offset/],
      [`start_time=0&end_time=1`, '0x1234', /contract_address/],
    ]
    for (const [query, address, message] of cases) {
      const res = await getJson(url(query, address))
      expect(res.status, query).toBe(400)
      expect(res.body.status).toBe('error')
      expect(res.body.message).toMatch(message)
    }
  })

  it('answers an unknown token with a 404', async () => {
    const res = await getJson(url(`start_time=0&end_time=1`, addressOf(0x999)))
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ status: 'error', message: expect.stringContaining(addressOf(0x999)) })
  })
})
