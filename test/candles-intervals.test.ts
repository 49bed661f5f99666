import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastClosedCandleStart } from '../shared/candles/candles.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf, insertPrices, insertTokens } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const H = 3_600_000
const DAY = 24 * H

interface Row {
  time: number
  open: number
  high: number
  low: number
  close: number
  volume: number
}

describe('GET /tokens/:contract_address/candles: intervals, latest candles, rounding', () => {
  let rt: TestRuntime
  let api: TestApi
  const token = addressOf(0xc4a1)
  // Midnight UTC ten days ago: every candle below is closed, whatever the interval.
  const day0 = Math.floor(Date.now() / DAY) * DAY - 10 * DAY
  const url = (query: string) => `${api.baseUrl}/tokens/${token}/candles?${query}`
  const all = `start_time=0&end_time=${Date.now() + DAY}`

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [{ address: token, decimals: 18, symbol: 'IVL' }])
    await insertPrices(rt, [
      { address: token, time: day0 + 1 * H + 10, price: 10, volume: 1 },
      { address: token, time: day0 + 5 * H + 1, price: 12, volume: 2 },
      { address: token, time: day0 + 5 * H + 2, price: 9, volume: 3 },
      { address: token, time: day0 + 6 * H, price: 9.5, volume: 0.1 },
      { address: token, time: day0 + 23 * H + 1, price: 11, volume: 0.1 },
      { address: token, time: day0 + 23 * H + 2, price: 11, volume: 0.2 }, // 0.1 + 0.2 in one hour
      { address: token, time: day0 + 2 * DAY + 3 * H, price: 0.1 + 0.2, volume: 5 },
    ])
  })
  afterAll(async () => {
    await api.close()
    await rt.cleanup()
  })

  it('1h: the stored one-hour candles, gaps filled, values to 12 significant digits', async () => {
    const res = await getJson(url(`interval=1h&start_time=${day0}&end_time=${day0 + 24 * H - 1}`))
    expect(res.status).toBe(200)
    expect(res.body.pagination).toEqual({ total: 23, limit: 50, offset: 0 })
    const rows: Row[] = res.body.result
    expect(rows[0]).toEqual({ time: day0 + H, open: 10, high: 10, low: 10, close: 10, volume: 1 })
    expect(rows[1]).toEqual({ time: day0 + 2 * H, open: 10, high: 10, low: 10, close: 10, volume: 0 })
    expect(rows[4]).toEqual({ time: day0 + 5 * H, open: 12, high: 12, low: 9, close: 9, volume: 5 })
    expect(rows[5]).toEqual({ time: day0 + 6 * H, open: 9.5, high: 9.5, low: 9.5, close: 9.5, volume: 0.1 })
    expect(rows[22]).toEqual({ time: day0 + 23 * H, open: 11, high: 11, low: 11, close: 11, volume: 0.3 })
  })

  it('4h (the default) and 1d: aggregated exactly from the hours (first open, last close, max, min, sum)', async () => {
    const four = await getJson(url(`start_time=${day0}&end_time=${day0 + 8 * H}`))
    expect(four.body.result).toEqual([
      { time: day0, open: 10, high: 10, low: 10, close: 10, volume: 1 },
      { time: day0 + 4 * H, open: 12, high: 12, low: 9, close: 9.5, volume: 5.1 },
      { time: day0 + 8 * H, open: 9.5, high: 9.5, low: 9.5, close: 9.5, volume: 0 },
    ])
    const daily = await getJson(url(`interval=1d&${all}`))
    expect(daily.status).toBe(200)
    const rows: Row[] = daily.body.result
    const lastDay = lastClosedCandleStart(Date.now(), DAY)
    expect(rows.map((r) => r.time)).toEqual(Array.from({ length: (lastDay - day0) / DAY + 1 }, (_, i) => day0 + i * DAY))
    expect(rows[0]).toEqual({ time: day0, open: 10, high: 12, low: 9, close: 11, volume: 6.4 })
    expect(rows[1]).toEqual({ time: day0 + DAY, open: 11, high: 11, low: 11, close: 11, volume: 0 })
    expect(rows[2]).toEqual({ time: day0 + 2 * DAY, open: 0.3, high: 0.3, low: 0.3, close: 0.3, volume: 5 })
    expect(rows.at(-1)).toEqual({ time: lastDay, open: 0.3, high: 0.3, low: 0.3, close: 0.3, volume: 0 })
  })

  it('without start_time and end_time: the latest `limit` closed candles, oldest first, offset from the newest', async () => {
    const before = lastClosedCandleStart(Date.now(), H)
    const latest = await getJson(url('interval=1h'))
    const after = lastClosedCandleStart(Date.now(), H)
    expect(latest.status).toBe(200)
    const rows: Row[] = latest.body.result
    expect(rows).toHaveLength(50)
    const last = rows.at(-1)!.time
    expect([before, after]).toContain(last)
    expect(rows.map((r) => r.time)).toEqual(Array.from({ length: 50 }, (_, i) => last - (49 - i) * H))
    expect(latest.body.pagination).toEqual({ total: (last - (day0 + H)) / H + 1, limit: 50, offset: 0 })

    const older = await getJson(url('interval=1h&limit=5&offset=10'))
    const olderRows: Row[] = older.body.result
    if (lastClosedCandleStart(Date.now(), H) === last) {
      expect(olderRows.map((r) => r.time)).toEqual(Array.from({ length: 5 }, (_, i) => last - (14 - i) * H))
    }
    expect(older.body.pagination).toMatchObject({ limit: 5, offset: 10 })

    // The whole history in one page (at most 1,000), and an offset past the start.
    const whole = await getJson(url('interval=1h&limit=1000'))
    expect(whole.body.result[0].time).toBe(day0 + H)
    const past = await getJson(url('interval=1d&offset=1000'))
    expect(past.body.result).toEqual([])
  })

  it('answers a bad interval, a lone start_time or end_time and a limit above 1,000 with a 400', async () => {
    const cases: Array<[string, RegExp]> = [
      ['interval=2h', /interval must be one of 1h, 4h, 1d \(got "2h"\)/],
      ['interval=', /interval must be one of 1h, 4h, 1d/],
      ['interval=1h&interval=4h', /interval must be given once/],
      ['start_time=0', /end_time is required/],
      ['end_time=5', /start_time is required/],
      ['limit=1001', /limit must be an integer from 1 to 1000/],
      ['limit=0', /limit/],
    ]
    for (const [query, message] of cases) {
      const res = await getJson(url(query))
      expect(res.status, query).toBe(400)
      expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(message) })
    }
  })
})
