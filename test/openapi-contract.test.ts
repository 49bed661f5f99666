import SwaggerParser from '@apidevtools/swagger-parser'
import type { Express } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer, type ApiServer } from '../api/api-server.js'
import { DOCUMENTATION_PATHS } from '../api/contract/docs-routes.js'
import { openApiPath } from '../api/contract/endpoint.js'
import { mountedRoutes } from '../api/contract/mounted-routes.js'
import { openApiDocument } from '../api/contract/openapi-document.js'
import { PUBLIC_ENDPOINTS } from '../api/contract/public-endpoints.js'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis } from '../shared/platform/redis.js'
import { writeTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { addressFor, hashFor, insertHoldings, insertSwaps, insertTokens, sampleTechnicalAnalysis } from './support/factories.js'
import { getJson } from './support/http.js'
import { insertPrices } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/** Routes that serve pages and files, not API operations: not in the document. */
const PAGES: readonly string[] = [...DOCUMENTATION_PATHS, '/']
const isPage = (path: string) => PAGES.includes(path) || path.startsWith('/chart-page/')
/** Operator tools, not public (admin/admin-router.ts). */
const isAdmin = (path: string) => path === '/admin' || path.startsWith('/admin/')

describe('the HTTP contract: OpenAPI document, routes and responses agree', () => {
  let rt: TestRuntime
  let api: ApiServer
  let base: string
  const weth = addressFor('weth')
  const usdc = addressFor('usdc')
  const wallet = addressFor('wallet')
  const swapHash = hashFor('swap-1')
  const swapTime = Date.UTC(2026, 0, 2, 3, 4, 5, 678)

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startApiServer(rt, 0, '127.0.0.1')
    base = `http://127.0.0.1:${api.port}`
    await insertTokens(rt, [
      { contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 },
      { contract_address: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
    ])
    await insertHoldings(rt, [
      { wallet_address: wallet, contract_address: weth, balance_raw: '1500000000000000000', value_usd: 3000 },
      { wallet_address: wallet, contract_address: addressFor('no-metadata'), balance_raw: '7', value_usd: null },
    ])
    await insertSwaps(rt, [
      { hash: swapHash, timestamp: swapTime, wallet_address: wallet, token_sold_address: weth, token_bought_address: usdc },
      { hash: hashFor('swap-2'), timestamp: swapTime + 1, wallet_address: wallet, value_usd: null, dex: null },
    ])
    const last = lastClosedCandleStart(Date.now())
    await insertPrices(
      rt,
      Array.from({ length: 30 }, (_, i) => ({ address: weth, time: last - i * CANDLE_MS, price: 2000 + i, volume: 10 })),
    )
    const redis = createRedis(rt.config.redis.url)
    try {
      await writeTechnicalAnalysis(redis, rt.config.redis.prefix, sampleTechnicalAnalysis({ contractAddress: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 }))
    } finally {
      redis.disconnect()
    }
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('GET /openapi.json serves a valid OpenAPI 3.1 document, the one made from the contract', async () => {
    const { status, body, contentType } = await getJson(`${base}/openapi.json`)
    expect(status).toBe(200)
    expect(contentType).toMatch(/^application\/json/)
    expect(body).toEqual(JSON.parse(JSON.stringify(openApiDocument())))
    expect(body.openapi).toBe('3.1.0')
    // Throws on any schema violation or broken $ref.
    await SwaggerParser.validate(structuredClone(body))
    for (const endpoint of PUBLIC_ENDPOINTS) {
      expect(body.paths[openApiPath(endpoint.path)]?.get?.operationId, endpoint.path).toBe(endpoint.operationId)
    }
  })

  it('every mounted public route is in the document, and every documented operation is mounted', () => {
    const root = api.server.listeners('request')[0] as Express
    const mounted = [...mountedRoutes(root), ...mountedRoutes(api.api)]
      .filter((route) => !isPage(route.path) && !isAdmin(route.path))
      .map((route) => `${route.method} ${openApiPath(route.path)}`)
    const documented = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((key) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    // The listing sees the routes at all (of the read API and of the server's own app).
    expect(mounted).toContain('GET /tokens/{contract_address}/candles')
    expect(mounted).toContain('GET /health')
    expect([...new Set(mounted)].sort()).toEqual([...new Set(documented)].sort())
  })

  it('the documented response schemas hold real responses (strictly: no undocumented field)', async () => {
    const start = swapTime - 1000
    const end = swapTime + 1000
    const requests: Record<string, string> = {
      listTokens: '/tokens?limit=5',
      getToken: `/tokens/${weth}`,
      listCandles: `/tokens/${weth}/candles?interval=4h&limit=10`,
      listHoldings: '/holdings',
      listTokenHoldings: `/holdings/token/${weth}`,
      getHolding: `/holdings/${wallet}-${weth}`,
      listSwaps: `/swap-transactions?start_time=${start}&end_time=${end}&limit=1`,
      getSwap: `/swap-transactions/${swapHash}`,
      getTechnicalAnalysis: `/technical-analysis?contract_address=${weth}`,
      listTechnicalAnalysisHistory: `/technical-analysis/history?contract_address=${weth}&limit=5`,
      health: '/health',
    }
    for (const endpoint of PUBLIC_ENDPOINTS) {
      const path = requests[endpoint.operationId]
      if (endpoint.success.schema === undefined || path === undefined) continue
      const { status, body } = await getJson(`${base}${path}`)
      expect(status, path).toBe(200)
      const parsed = endpoint.success.schema.safeParse(body)
      expect(parsed.success ? 'conforms' : parsed.error.message, path).toBe('conforms')
      if (Array.isArray(body.result)) expect(body.result.length, `${path}: a page with rows`).toBeGreaterThan(0)
    }
    // A swaps page with a next cursor and the seconds hint conform too.
    const seconds = await getJson(`${base}/swap-transactions?start_time=${Math.floor(start / 1000)}&end_time=${Math.floor(end / 1000)}`)
    expect(seconds.body.message).toMatch(/milliseconds/)
    const swapsSchema = PUBLIC_ENDPOINTS.find((e) => e.operationId === 'listSwapTransactions')!.success.schema!
    expect(swapsSchema.safeParse(seconds.body).success).toBe(true)
    // And a response the document does not describe fails: the check is strict.
    const { body: token } = await getJson(`${base}/tokens/${weth}`)
    const getTokenSchema = PUBLIC_ENDPOINTS.find((e) => e.operationId === 'getToken')!.success.schema!
    expect(getTokenSchema.safeParse({ ...token, result: { ...token.result, extra: 1 } }).success).toBe(false)
  })

  it('GET /docs renders the document with Swagger UI from local files only', async () => {
    const page = await fetch(`${base}/docs`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(references.length).toBeGreaterThanOrEqual(3)
    for (const reference of references) {
      expect(reference, 'no CDN: every script and style is served here').toMatch(/^\/[^/]/)
      const asset = await fetch(`${base}${reference}`)
      expect(asset.status, reference).toBe(200)
      expect((await asset.arrayBuffer()).byteLength, reference).toBeGreaterThan(0)
    }
    const init = await (await fetch(`${base}/docs/init.js`)).text()
    expect(init).toContain("url: '/openapi.json'")
    expect(init).toContain('validatorUrl: null')
    expect((await fetch(`${base}/docs/assets/package.json`)).status).toBe(404)
  })
})
