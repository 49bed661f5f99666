import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer } from '../api/api-server.js'
import {
  CANDLE_COLUMNS,
  HOLDING_COLUMNS,
  INDICATOR_HISTORY_COLUMNS,
  SWAP_COLUMNS,
  TOKEN_COLUMNS,
  type CsvColumns,
} from '../api/csv-columns.js'
import { KNOWN_PATHS } from '../api/known-paths.js'
import { CANDLE_MS, candleStart, lastClosedCandleStart } from '../shared/candles/candles.js'
import { loadConfig } from '../shared/platform/config.js'
import { createRedis } from '../shared/platform/redis.js'
import { writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { fetchBytes, jsonOf, parseCsv, type BytesResponse } from './support/bytes-http.js'
import {
  addressFor,
  hashFor,
  insertHoldings,
  insertPrices,
  insertSwaps,
  insertTokens,
  sampleTechnicalAnalysis,
} from './support/factories.js'
import { startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const MAX_UINT256 = ((1n << 256n) - 1n).toString()
const T0 = Date.UTC(2025, 1, 1)
const HOUR = 3_600_000
const CANDLES = 40

/** Compression, ETag and 304, Cache-Control, CORS, HEAD and format=csv, over real HTTP. */
describe('HTTP for bulk pulls', () => {
  let rt: TestRuntime
  let api: TestApi
  const weth = addressFor('weth')
  const odd = addressFor('odd') // a name that needs CSV quoting
  const bare = addressFor('bare') // no metadata: null fields
  const alice = addressFor('alice')
  const bob = addressFor('bob')
  const range = `start_time=${T0}&end_time=${T0 + 100 * HOUR}`
  let lastClosed: number

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [
      { contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 },
      { contract_address: odd, name: 'Say "hi", all\nof you', symbol: 'O,DD', decimals: 6 },
    ])
    await insertSwaps(
      rt,
      Array.from({ length: 30 }, (_, i) => ({
        hash: hashFor(`bulk-${i}`),
        timestamp: T0 + (i % 10) * HOUR + i,
        wallet_address: i % 2 === 0 ? alice : bob,
        token_sold_address: i % 5 === 0 ? bare : odd,
        token_sold_amount: i === 3 ? MAX_UINT256 : '2500000',
        token_bought_address: weth,
        token_bought_amount: i === 4 ? MAX_UINT256 : '1000000000000000001',
        value_usd: i % 6 === 0 ? null : 2.5 + i / 7,
        dex: i % 3 === 0 ? null : 'uniswap-v3',
      })),
    )
    await insertHoldings(rt, [
      { wallet_address: alice, contract_address: bare, balance_raw: MAX_UINT256, value_usd: null },
      { wallet_address: alice, contract_address: weth, balance_raw: '123456789012345678901234567890', value_usd: 1234.5 },
      { wallet_address: bob, contract_address: weth, balance_raw: '1', value_usd: 0.01 },
      { wallet_address: bob, contract_address: odd, balance_raw: '7', value_usd: 3 },
    ])
    lastClosed = lastClosedCandleStart(Date.now())
    await insertPrices(
      rt,
      Array.from({ length: CANDLES }, (_, i) => ({
        contract_address: weth,
        timestamp: lastClosed - (CANDLES - 1 - i) * CANDLE_MS + 1,
        price_usd: 2000 + 13 * Math.sin(i) + i / 3,
        volume_usd: 1000 + i,
      })),
    )
    const redis = createRedis(rt.config.redis.url)
    try {
      await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: weth, name: 'Wrapped Ether', symbol: 'WETH' }))
    } finally {
      redis.disconnect()
    }
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  const url = (path: string) => `${api.baseUrl}${path}`

  describe('compression', () => {
    it.each(['gzip', 'br'])('%s decodes to exactly the uncompressed body (JSON and CSV)', async (encoding) => {
      for (const path of [`/swap-transactions?${range}`, `/swap-transactions?${range}&format=csv`]) {
        const plain = await fetchBytes(url(path), { headers: { 'accept-encoding': 'identity' } })
        expect(plain.status).toBe(200)
        expect(plain.headers['content-encoding']).toBeUndefined()
        expect(plain.body.length).toBeGreaterThan(4_000)
        const packed = await fetchBytes(url(path), { headers: { 'accept-encoding': encoding } })
        expect(packed.status).toBe(200)
        expect(packed.headers['content-encoding']).toBe(encoding)
        expect(packed.headers['vary']).toMatch(/Accept-Encoding/i)
        expect(packed.body.length).toBeLessThan(plain.body.length / 2)
        const decoded = encoding === 'gzip' ? gunzipSync(packed.body) : brotliDecompressSync(packed.body)
        expect(decoded.equals(plain.body)).toBe(true)
      }
    })
  })

  describe('ETag and conditional requests', () => {
    it('a weak ETag, the same compressed or not; If-None-Match answers 304 without a body', async () => {
      const path = url(`/swap-transactions?${range}&limit=20`)
      const first = await fetchBytes(path)
      expect(first.status).toBe(200)
      const etag = first.headers['etag']
      expect(etag).toMatch(/^W\/"[^"]+"$/)
      expect(first.headers['cache-control']).toBe('no-cache')

      const gz = await fetchBytes(path, { headers: { 'accept-encoding': 'gzip' } })
      expect(gz.headers['etag']).toBe(etag)

      for (const encoding of ['identity', 'gzip', 'br']) {
        const again = await fetchBytes(path, { headers: { 'if-none-match': etag!, 'accept-encoding': encoding } })
        expect(again.status).toBe(304)
        expect(again.body.length).toBe(0)
        expect(again.headers['etag']).toBe(etag)
      }
      // Another page is another representation: a full 200.
      const other = await fetchBytes(url(`/swap-transactions?${range}&limit=19`), { headers: { 'if-none-match': etag! } })
      expect(other.status).toBe(200)
      expect(other.headers['etag']).not.toBe(etag)
    })
  })

  describe('Cache-Control', () => {
    it('a range of closed candles ending before the interval in progress may be cached; anything else is no-cache', async () => {
      const now = Date.now()
      const closedRange = `start_time=${lastClosed - 20 * CANDLE_MS}&end_time=${candleStart(now) - 1}`
      const cacheable = await fetchBytes(url(`/tokens/${weth}/candles?${closedRange}`))
      expect(cacheable.status).toBe(200)
      expect(cacheable.headers['cache-control']).toBe('public, max-age=3600')
      const revalidated = await fetchBytes(url(`/tokens/${weth}/candles?${closedRange}`), {
        headers: { 'if-none-match': cacheable.headers['etag']! },
      })
      expect(revalidated.status).toBe(304)
      expect(revalidated.headers['cache-control']).toBe('public, max-age=3600')
      const history = await fetchBytes(url(`/technical-analysis/history?contract_address=${weth}&${closedRange}`))
      expect(history.headers['cache-control']).toBe('public, max-age=3600')
      // 1h candles: the range reaches the hour in progress, which will close into it.
      const hourly = await fetchBytes(url(`/tokens/${weth}/candles?interval=1h&start_time=${lastClosed}&end_time=${now + HOUR}`))
      expect(hourly.headers['cache-control']).toBe('no-cache')

      for (const path of [
        `/tokens/${weth}/candles`, // the latest candles: a new one closes every 4 hours
        `/tokens/${weth}/candles?start_time=0&end_time=${now + CANDLE_MS}`,
        `/technical-analysis/history?contract_address=${weth}`,
        '/tokens',
        `/holdings`,
        `/swap-transactions?${range}`,
      ]) {
        const res = await fetchBytes(url(path))
        expect(res.status, path).toBe(200)
        expect(res.headers['cache-control'], path).toBe('no-cache')
      }
    })

    it('with API keys, a cacheable series is private (a shared cache would skip the key check)', async () => {
      const key = 'cache-key-0123456789'
      const config = loadConfig({ ...rt.env, API_KEYS: key })
      const keyed = await startApiServer({ ...rt, config }, 0, '127.0.0.1')
      try {
        const res = await fetchBytes(
          `http://127.0.0.1:${keyed.port}/tokens/${weth}/candles?start_time=0&end_time=${candleStart(Date.now()) - 1}`,
          { headers: { 'x-api-key': key } },
        )
        expect(res.status).toBe(200)
        expect(res.headers['cache-control']).toBe('private, max-age=3600')
      } finally {
        await keyed.close()
      }
    })
  })

  describe('CORS', () => {
    const allowed = 'https://notebook.example'
    const refused = 'https://elsewhere.example'

    async function withCors(origins: string | undefined, run: (base: string) => Promise<void>): Promise<void> {
      const config = loadConfig({ ...rt.env, ...(origins === undefined ? {} : { CORS_ORIGINS: origins }) })
      const server = await startApiServer({ ...rt, config }, 0, '127.0.0.1')
      try {
        await run(`http://127.0.0.1:${server.port}`)
      } finally {
        await server.close()
      }
    }

    const preflight = (origin: string, method = 'GET') => ({
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key' },
    })

    it('a list: allowed origins are echoed and their preflight answered; others get no CORS header and the JSON 405', async () => {
      await withCors(`${allowed}, https://other.example`, async (base) => {
        const ok = await fetchBytes(`${base}/tokens`, { headers: { origin: allowed } })
        expect(ok.status).toBe(200)
        expect(ok.headers['access-control-allow-origin']).toBe(allowed)
        expect(ok.headers['vary']).toMatch(/Origin/)
        expect(ok.headers['access-control-expose-headers']).toMatch(/ETag.*Retry-After.*X-Total-Count.*X-Next-Cursor/)
        expect(ok.headers['access-control-allow-credentials']).toBeUndefined()

        const no = await fetchBytes(`${base}/tokens`, { headers: { origin: refused } })
        expect(no.status).toBe(200)
        expect(no.headers['access-control-allow-origin']).toBeUndefined()
        expect(no.headers['vary']).toMatch(/Origin/)

        const pre = await fetchBytes(`${base}/tokens`, preflight(allowed))
        expect(pre.status).toBe(204)
        expect(pre.body.length).toBe(0)
        expect(pre.headers['access-control-allow-origin']).toBe(allowed)
        expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD')
        expect(pre.headers['access-control-allow-headers']).toMatch(/X-API-Key/)
        expect(pre.headers['access-control-max-age']).toBe('600')

        for (const [what, init] of [
          ['refused origin', preflight(refused)],
          ['a method other than GET/HEAD', preflight(allowed, 'DELETE')],
          ['OPTIONS without Origin', { method: 'OPTIONS' }],
        ] as const) {
          const res = await fetchBytes(`${base}/tokens`, init)
          expect(res.status, what).toBe(405)
          expect(res.headers['allow'], what).toBe('GET, HEAD')
          expect(jsonOf(res), what).toEqual({ status: 'error', message: 'Method OPTIONS is not allowed on /tokens; use GET or HEAD' })
          expect(res.headers['access-control-allow-methods'], what).toBeUndefined()
        }
      })
    })

    it('*: any origin, not echoed', async () => {
      await withCors('*', async (base) => {
        const res = await fetchBytes(`${base}/holdings`, { headers: { origin: refused } })
        expect(res.headers['access-control-allow-origin']).toBe('*')
        expect((await fetchBytes(`${base}/holdings`, preflight(refused))).status).toBe(204)
      })
    })

    it('off by default: no CORS header, OPTIONS stays the JSON 405', async () => {
      await withCors(undefined, async (base) => {
        const res = await fetchBytes(`${base}/tokens`, { headers: { origin: allowed } })
        expect(res.headers['access-control-allow-origin']).toBeUndefined()
        const pre = await fetchBytes(`${base}/tokens`, preflight(allowed))
        expect(pre.status).toBe(405)
        expect(jsonOf(pre)).toMatchObject({ status: 'error' })
      })
    })

    it('CORS_ORIGINS is validated', () => {
      expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/' })).toThrow(/CORS_ORIGINS/)
      expect(() => loadConfig({ CORS_ORIGINS: '*,https://a.example' })).toThrow(/use \* alone/)
      expect(loadConfig({}).httpApi.corsOrigins).toEqual([])
    })
  })

  describe('HEAD', () => {
    it('every GET route answers HEAD with the GET status and headers and no body', async () => {
      // Every known path, its parameters filled in; the query a route needs to answer 200.
      const values: Record<string, string> = { ':id': `${alice}-${weth}`, ':hash': hashFor('bulk-1') }
      const queries: Record<string, string> = {
        '/swap-transactions': range,
        '/technical-analysis': `contract_address=${weth}`,
        '/technical-analysis/history': `contract_address=${weth}`,
      }
      const concrete = (pattern: string) => {
        const path = pattern.replace(/:[a-z_]+/g, (name) => values[name] ?? weth)
        return queries[pattern] === undefined ? path : `${path}?${queries[pattern]}`
      }
      // These must answer 200 here (a path added later is checked for HEAD = GET whatever it answers).
      const served = ['/health', '/ready', '/tokens', '/tokens/:contract_address', '/tokens/:contract_address/candles', '/holdings']
        .concat(['/holdings/token/:contract_address', '/holdings/:id', '/swap-transactions', '/swap-transactions/:hash'])
        .concat(['/technical-analysis', '/technical-analysis/history'])
      expect(served.filter((p) => !KNOWN_PATHS.includes(p))).toEqual([])
      const paths = [...KNOWN_PATHS.map(concrete), `/swap-transactions?${range}&format=csv`, '/nowhere']
      for (const path of paths) {
        const get = await fetchBytes(url(path))
        const head = await fetchBytes(url(path), { method: 'HEAD' })
        expect(head.status, path).toBe(get.status)
        expect(head.body.length, path).toBe(0)
        expect(head.headers['content-type'], path).toBe(get.headers['content-type'])
        // (The metrics change between two scrapes; the 404 names the method.)
        if (get.headers['content-length'] !== undefined && path !== '/metrics' && path !== '/nowhere') {
          expect(head.headers['content-length'], path).toBe(get.headers['content-length'])
        }
      }
      for (const pattern of served) expect((await fetchBytes(url(concrete(pattern)), { method: 'HEAD' })).status, pattern).toBe(200)
    })
  })

  describe('format=csv', () => {
    /** A JSON row as its CSV cells: nested fields flattened in column order, null as empty, numbers as JSON writes them. */
    function asCells(row: unknown, columns: CsvColumns): string[] {
      return columns.map((column) => {
        let value: unknown = row
        for (const part of column.split('.')) value = value === null ? null : (value as Record<string, unknown>)[part]
        expect(value, column).not.toBeUndefined()
        return value === null ? '' : String(value)
      })
    }

    /** Every field of a JSON row, nested ones as parent.child: what the CSV header must name. */
    function fieldsOf(row: unknown, path = ''): string[] {
      return Object.entries(row as Record<string, unknown>).flatMap(([name, value]) => {
        const column = path === '' ? name : `${path}.${name}`
        return value !== null && typeof value === 'object' ? fieldsOf(value, column) : [column]
      })
    }

    async function compare(path: string, columns: CsvColumns): Promise<{ csv: BytesResponse; rows: unknown[] }> {
      const json = await fetchBytes(url(path))
      expect(json.status, path).toBe(200)
      const body = jsonOf<{ result: unknown[]; pagination: { total: number; limit: number; offset: number; next_cursor?: string | null } }>(json)
      const sep = path.includes('?') ? '&' : '?'
      const csv = await fetchBytes(url(`${path}${sep}format=csv`))
      expect(csv.status, path).toBe(200)
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
      expect(csv.headers['x-total-count']).toBe(String(body.pagination.total))
      expect(csv.headers['x-limit']).toBe(String(body.pagination.limit))
      expect(csv.headers['x-offset']).toBe(String(body.pagination.offset))
      expect(csv.headers['x-next-cursor']).toBe(body.pagination.next_cursor ?? undefined)
      const [header, ...records] = parseCsv(csv.body.toString('utf8'))
      expect(header).toEqual([...columns])
      expect(records).toHaveLength(body.result.length)
      expect(body.result.length, `${path}: a non-empty page`).toBeGreaterThan(0)
      // Same columns as the JSON rows: every field of a fully populated row is a column.
      const populated = body.result.find((r) => fieldsOf(r).length === columns.length)
      expect(populated, `${path}: a row with every field`).toBeDefined()
      expect(fieldsOf(populated)).toEqual([...columns])
      records.forEach((record, i) => expect(record, `${path} row ${i}`).toEqual(asCells(body.result[i], columns)))
      return { csv, rows: body.result }
    }

    it('swaps: the JSON page, cell for cell, uint256 amounts exact, nulls empty, quoting intact', async () => {
      const { csv } = await compare(`/swap-transactions?${range}`, SWAP_COLUMNS)
      const [header, ...records] = parseCsv(csv.body.toString('utf8'))
      const amount = header!.indexOf('token_sold.amount_raw')
      expect(records.some((r) => r[amount] === MAX_UINT256)).toBe(true)
      const name = header!.indexOf('token_sold.name')
      expect(records.some((r) => r[name] === 'Say "hi", all\nof you')).toBe(true)
      expect(records.some((r) => r[name] === '')).toBe(true) // the token without metadata
    })

    it('swaps by cursor: X-Next-Cursor walks the range, every swap once', async () => {
      const seen: string[] = []
      let next: string | undefined
      let pages = 0
      do {
        const cursor: string = next === undefined ? '' : `&cursor=${encodeURIComponent(next)}`
        const res = await fetchBytes(url(`/swap-transactions?${range}&limit=7&format=csv${cursor}`))
        expect(res.status).toBe(200)
        expect(res.headers['x-total-count']).toBe('30')
        const [header, ...records] = parseCsv(res.body.toString('utf8'))
        seen.push(...records.map((r) => r[header!.indexOf('hash')]!))
        next = res.headers['x-next-cursor'] as string | undefined
        pages++
      } while (next !== undefined && pages < 10)
      expect(pages).toBe(5)
      expect(new Set(seen).size).toBe(30)
    })

    it('tokens, holdings, holdings of a token, candles, indicator history: the JSON page, cell for cell', async () => {
      await compare('/tokens', TOKEN_COLUMNS)
      const { csv } = await compare('/holdings', HOLDING_COLUMNS)
      expect(csv.body.toString('utf8')).toContain(`,${MAX_UINT256},`)
      await compare(`/holdings/token/${weth}?limit=1&offset=1`, HOLDING_COLUMNS)
      await compare(`/tokens/${weth}/candles?limit=${CANDLES}`, CANDLE_COLUMNS)
      await compare(`/tokens/${weth}/candles?interval=1h&limit=5`, CANDLE_COLUMNS)
      await compare(`/technical-analysis/history?contract_address=${weth}&limit=${CANDLES}`, INDICATOR_HISTORY_COLUMNS)
      // From the first candle (the swaps' prices): rows whose indicators are null for want of candles, then filled ones.
      const { rows } = await compare(
        `/technical-analysis/history?contract_address=${weth}&start_time=${T0 - CANDLE_MS}&end_time=${T0 + 50 * CANDLE_MS}`,
        INDICATOR_HISTORY_COLUMNS,
      )
      expect(rows.some((r) => (r as { macd: unknown }).macd === null)).toBe(true)
    })

    it('an empty page is the header row alone', async () => {
      const res = await fetchBytes(url(`/swap-transactions?start_time=0&end_time=1&format=csv`))
      expect(res.status).toBe(200)
      expect(res.body.toString('utf8')).toBe(`${SWAP_COLUMNS.join(',')}\n`)
      expect(res.headers['x-total-count']).toBe('0')
      expect(res.headers['x-next-cursor']).toBeUndefined()
    })

    it('format other than json or csv, or given twice: a 400 JSON naming the accepted values', async () => {
      const bad = await fetchBytes(url('/tokens?format=xml'))
      expect(bad.status).toBe(400)
      expect(jsonOf(bad)).toEqual({ status: 'error', message: 'format must be one of json, csv (got "xml")' })
      const twice = await fetchBytes(url('/holdings?format=csv&format=json'))
      expect(twice.status).toBe(400)
      expect(jsonOf(twice)).toMatchObject({ status: 'error', message: expect.stringMatching(/^format/) })
      // An error of a CSV request is still the JSON envelope.
      const missing = await fetchBytes(url('/swap-transactions?format=csv'))
      expect(missing.status).toBe(400)
      expect(missing.headers['content-type']).toMatch(/^application\/json/)
      expect(jsonOf(missing)).toMatchObject({ status: 'error', message: expect.stringMatching(/^start_time is required/) })
    })
  })
})
