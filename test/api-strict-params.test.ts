import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PUBLIC_ENDPOINTS } from '../api/contract/public-endpoints.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { addressFor, hashFor, insertSwaps, insertTokens } from './support/factories.js'
import { getJson, getJsonWithBody, startTestApi, type TestApi } from './support/http.js'
import { insertPrices } from './support/market-rows.js'
import { rawExchange } from './support/raw-http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('strict parameters', () => {
  let rt: TestRuntime
  let api: TestApi
  const weth = addressFor('weth')
  // A swap at 1,700,000,000,000 ms: the same number in seconds is 1,700,000,000.
  const swapMs = 1_700_000_000_123

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [{ contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 }])
    await insertSwaps(rt, [{ hash: hashFor('swap'), timestamp: swapMs, token_sold_address: weth }])
    const last = lastClosedCandleStart(Date.now())
    await insertPrices(rt, [0, 1, 2].map((i) => ({ address: weth, time: last - i * CANDLE_MS, price: 2000, volume: 1 })))
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it.each([
    ['/holdings?wallet_address=0x49fe', 'Unknown query parameter "wallet_address": this endpoint accepts limit, offset, format'],
    ['/tokens?symbol=WETH', 'Unknown query parameter "symbol": this endpoint accepts limit, offset, format'],
    ['/tokens?limit=5&symbol=WETH&chain=1', 'Unknown query parameters "symbol", "chain": this endpoint accepts limit, offset, format'],
    [`/tokens/${addressFor('weth')}?fields=name`, 'Unknown query parameter "fields": this endpoint takes no query parameters'],
    [
      `/tokens/${addressFor('weth')}/candles?resolution=1h`,
      'Unknown query parameter "resolution": this endpoint accepts interval, start_time, end_time, in_progress, limit, offset, format',
    ],
    [
      '/swap-transactions?start_time=0&end_time=1&wallet=0x1',
      'Unknown query parameter "wallet": this endpoint accepts start_time, end_time, token_id, cursor, limit, offset, format, address',
    ],
    [`/technical-analysis?address=${addressFor('weth')}`, 'Unknown query parameter "address": this endpoint accepts token_id, contract_address'],
    // An unknown parameter is named before any other problem (it may be the reason for it).
    ['/holdings?limit=0&page=2', 'Unknown query parameter "page": this endpoint accepts limit, offset, format'],
  ])('%s: 400 naming the parameter and the accepted ones', async (path, message) => {
    const { status, body } = await getJson(`${api.baseUrl}${path}`)
    expect(status).toBe(400)
    expect(body).toEqual({ status: 'error', message })
  })

  it('every endpoint of the contract refuses an unknown query parameter', async () => {
    const sample: Record<string, string> = { ':contract_address': weth, ':id': `${addressFor('wallet')}-${weth}`, ':hash': hashFor('swap'), ':address': addressFor('wallet') }
    const checked = PUBLIC_ENDPOINTS.filter((endpoint) => !['/health', '/ready', '/metrics'].includes(endpoint.path))
    expect(checked.length).toBeGreaterThanOrEqual(10)
    for (const endpoint of checked) {
      const path = endpoint.path.replace(/:[a-z_]+/g, (name) => sample[name] ?? 'x')
      const { status, body } = await getJson(`${api.baseUrl}${path}?no_such_parameter=1`)
      expect(status, path).toBe(400)
      expect(body.message, path).toMatch(/^Unknown query parameter "no_such_parameter"/)
    }
  })

  it('an unknown field in the JSON body of GET /technical-analysis is a 400 too', async () => {
    const { status, body } = await getJsonWithBody(`${api.baseUrl}/technical-analysis`, { contract_address: weth, interval: '1h' })
    expect(status).toBe(400)
    expect(body).toEqual({ status: 'error', message: 'Unknown field "interval" in the request body: it accepts token_id, contract_address' })
  })

  it('format is accepted on every list, and anything but json or csv is a 400', async () => {
    expect((await getJson(`${api.baseUrl}/tokens?format=json`)).status).toBe(200)
    const { status, body } = await getJson(`${api.baseUrl}/tokens?format=xml`)
    expect(status).toBe(400)
    expect(body).toEqual({ status: 'error', message: 'format must be one of json, csv (got "xml")' })
  })

  describe('times that look like seconds', () => {
    const seconds = Math.floor(swapMs / 1000)

    it('an empty page whose range looks like seconds says times are milliseconds', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?start_time=${seconds - 60}&end_time=${seconds + 60}`)
      expect(status).toBe(200)
      expect(body).toEqual({
        status: 'success',
        result: [],
        pagination: { total: 0, limit: 50, offset: 0, next_cursor: null },
        message:
          `start_time and end_time are Unix times in milliseconds; ${seconds - 60} and ${seconds + 60} look like seconds ` +
          `(nothing in that range): did you mean start_time=${(seconds - 60) * 1000}&end_time=${(seconds + 60) * 1000}?`,
      })
      // The suggested range finds the swap.
      const fixed = await getJson(`${api.baseUrl}/swap-transactions?start_time=${(seconds - 60) * 1000}&end_time=${(seconds + 60) * 1000}`)
      expect(fixed.body.pagination.total).toBe(1)
      expect(fixed.body.message).toBeUndefined()
    })

    it('no message when the page is not empty, or when the range is plainly in milliseconds', async () => {
      // Both below 10^11 but the range holds records: nothing to explain.
      const holding = await getJson(`${api.baseUrl}/swap-transactions?start_time=0&end_time=${swapMs}`)
      expect(holding.body.pagination.total).toBe(1)
      expect(holding.body).not.toHaveProperty('message')
      const inMs = await getJson(`${api.baseUrl}/swap-transactions?start_time=${swapMs + 1}&end_time=${swapMs + 1000}`)
      expect(inMs.body).toEqual({ status: 'success', result: [], pagination: { total: 0, limit: 50, offset: 0, next_cursor: null } })
      const endInMs = await getJson(`${api.baseUrl}/swap-transactions?start_time=1&end_time=${1e11}`)
      expect(endInMs.body).not.toHaveProperty('message')
    })

    it('the time series say it too', async () => {
      const now = Math.floor(Date.now() / 1000)
      for (const path of [`/tokens/${weth}/candles`, '/technical-analysis/history']) {
        const query = `${path.includes('history') ? `contract_address=${weth}&` : ''}start_time=${now - 86_400}&end_time=${now}`
        const { status, body } = await getJson(`${api.baseUrl}${path}?${query}`)
        expect(status, path).toBe(200)
        expect(body.result, path).toEqual([])
        expect(body.message, path).toMatch(/^start_time and end_time are Unix times in milliseconds/)
      }
    })
  })

  describe('methods other than GET and HEAD', () => {
    const port = () => Number(new URL(api.baseUrl).port)
    const exchange = (method: string, path: string) =>
      rawExchange(port(), `${method} ${path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)

    it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s on every documented path: a JSON 405 with Allow: GET, HEAD', async (method) => {
      for (const endpoint of PUBLIC_ENDPOINTS) {
        const path = endpoint.path.replace(/:[a-z_]+/g, 'x')
        const r = await exchange(method, path)
        expect(r.status, `${method} ${path}`).toBe(405)
        expect(r.headers['allow']).toBe('GET, HEAD')
        expect(r.headers['content-type']).toMatch(/^application\/json/)
        expect(r.json).toEqual({ status: 'error', message: `Method ${method} is not allowed on ${path}; use GET or HEAD` })
      }
    })

    it('also on the documentation; elsewhere a JSON 404', async () => {
      for (const path of ['/openapi.json', '/docs']) {
        const r = await exchange('POST', path)
        expect(r.status, path).toBe(405)
        expect(r.headers['content-type']).toMatch(/^application\/json/)
      }
      const r = await exchange('DELETE', '/no/such/path')
      expect(r.status).toBe(404)
      expect(r.headers['allow']).toBeUndefined()
      expect(r.json).toEqual({ status: 'error', message: 'No such endpoint: DELETE /no/such/path' })
    })
  })
  describe('a malformed value names its parameter and says what was wrong', () => {
    it.each([
      ['/wallets?sort=bogus', 'sort must be one of pnl, roi, win_rate, volume, last_trade (got "bogus")'],
      ['/wallets?window=7d', 'window must be one of 30d, 90d, 180d, all (got "7d")'],
      ['/wallets?order=sideways', 'order must be one of desc, asc (got "sideways")'],
      ['/wallets?sort=pnl&sort=roi', 'sort must be given once, as a single value'],
      ['/wallets?label=Not_A_Label', 'label must match /^[a-z0-9][a-z0-9-]{0,63}$/ (got "Not_A_Label")'],
      [`/tokens/${addressFor('weth')}/candles?interval=2h`, 'interval must be one of 1h, 4h, 1d (got "2h")'],
      ['/holdings?format=xml', 'format must be one of json, csv (got "xml")'],
    ])('%s: 400 %s', async (path, message) => {
      const { status, body } = await getJson(`${api.baseUrl}${path}`)
      expect(status).toBe(400)
      expect(body).toEqual({ status: 'error', message })
    })

    const sample: Record<string, string> = { ':contract_address': weth, ':id': `${addressFor('wallet')}-${weth}`, ':hash': hashFor('swap'), ':address': addressFor('wallet') }
    const withBase = (endpoint: (typeof PUBLIC_ENDPOINTS)[number], name: string, value: string): string => {
      const path = endpoint.path.replace(/:[a-z_]+/g, (param) => sample[param] ?? 'x')
      const shape = endpoint.query?.shape ?? {}
      const base: Record<string, string> = {}
      if ('start_time' in shape && endpoint.path !== '/technical-analysis/history' && !endpoint.path.endsWith('/candles')) {
        Object.assign(base, { start_time: '0', end_time: '1' })
      }
      if ('contract_address' in shape) base.contract_address = weth
      const targets = name === 'token_id' || name === 'contract_address' ? ['token_id', 'contract_address'] : [name]
      for (const key of targets) delete base[key]
      const query = new URLSearchParams(base).toString()
      return `${api.baseUrl}${path}?${query}${query === '' ? '' : '&'}${value}`
    }
    const everyParameter = () =>
      PUBLIC_ENDPOINTS.flatMap((endpoint) => Object.keys(endpoint.query?.shape ?? {}).map((name) => ({ endpoint, name })))

    it('every query parameter of every endpoint, given twice, is a 400 naming it', async () => {
      const checked = everyParameter()
      expect(checked.length).toBeGreaterThanOrEqual(40)
      for (const { endpoint, name } of checked) {
        const url = withBase(endpoint, name, `${name}=1&${name}=2`)
        const { status, body } = await getJson(url)
        expect(status, url).toBe(400)
        expect(body, url).toEqual({ status: 'error', message: `${name} must be given once, as a single value` })
      }
    })

    it('a malformed value of any query parameter is a 400 whose message begins with its name', async () => {
      let refused = 0
      for (const { endpoint, name } of everyParameter()) {
        const url = withBase(endpoint, name, `${name}=%25bogus!`)
        const { status, body } = await getJson(url)
        if (status !== 400) continue
        refused++
        expect(body.message, url).toMatch(new RegExp(`^${name} `))
      }
      expect(refused).toBeGreaterThanOrEqual(30)
    })
  })
})
