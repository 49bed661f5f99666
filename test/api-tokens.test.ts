import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor, announceTokens, insertTokens, mixedCase } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { pageThrough } from './support/paging.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('GET /tokens', () => {
  let rt: TestRuntime
  let api: TestApi
  const weth = addressFor('weth')
  const usdc = addressFor('usdc')

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    // 23 tokens; several share a symbol so the address tie-breaker matters.
    const rows = Array.from({ length: 20 }, (_, i) => ({
      contract_address: addressFor(`token-${i}`),
      symbol: `SYM${i % 4}`,
      name: `Token ${i}`,
      decimals: 18,
    }))
    rows.push({ contract_address: weth, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 })
    rows.push({ contract_address: usdc, symbol: 'USDC', name: 'USD Coin', decimals: 6 })
    rows.push({ contract_address: addressFor('custom'), symbol: 'CUS', name: 'Custom', decimals: 8 } as never)
    await insertTokens(rt, rows)
    await insertTokens(rt, [{ contract_address: addressFor('custom'), id: 'custom-id', symbol: 'CUS', name: 'Custom', decimals: 8 }])
    // The same token written again (a newer version): served once, counted once.
    await insertTokens(rt, [{ contract_address: weth, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, updated_at: Date.now() + 1000 }])
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('lists tokens with exactly the five fields, paginated with defaults', async () => {
    const { status, body, contentType } = await getJson(`${api.baseUrl}/tokens`)
    expect(status).toBe(200)
    expect(contentType).toMatch(/application\/json/)
    expect(body.status).toBe('success')
    expect(body.pagination).toEqual({ total: 23, limit: 50, offset: 0 })
    expect(body.result).toHaveLength(23)
    const wethToken = body.result.find((t: any) => t.contract_address === weth)
    expect(wethToken).toEqual({ id: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, contract_address: weth })
    for (const token of body.result) expect(Object.keys(token).sort()).toEqual(['contract_address', 'decimals', 'id', 'name', 'symbol'])
  })

  it('orders by symbol then address, and paging from 0 to total returns each token once', async () => {
    const all = (await getJson(`${api.baseUrl}/tokens?limit=500`)).body.result as any[]
    const sorted = [...all].sort((a, b) =>
      a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : a.contract_address < b.contract_address ? -1 : 1,
    )
    expect(all).toEqual(sorted)
    for (const limit of [1, 3, 7]) {
      const { records, totals } = await pageThrough(`${api.baseUrl}/tokens`, limit)
      expect(new Set(totals)).toEqual(new Set([23]))
      expect(records.map((t) => t.contract_address)).toEqual(all.map((t) => t.contract_address))
    }
  })

  it('a token written twice is listed and counted once', async () => {
    const all = (await getJson(`${api.baseUrl}/tokens?limit=500`)).body.result as any[]
    expect(all.filter((t) => t.contract_address === weth)).toHaveLength(1)
    expect(all.filter((t) => t.contract_address === addressFor('custom'))).toHaveLength(1)
  })

  it('an offset past the end gives an empty page with the exact total', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/tokens?offset=1000`)
    expect(status).toBe(200)
    expect(body).toEqual({ status: 'success', result: [], pagination: { total: 23, limit: 50, offset: 1000 } })
  })

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 500'],
    ['limit=501', 'limit must be an integer from 1 to 500'],
    ['limit=-1', 'limit must be an integer from 1 to 500'],
    ['limit=2.5', 'limit must be an integer from 1 to 500'],
    ['limit=abc', 'limit must be an integer from 1 to 500'],
    ['limit=', 'limit must be an integer from 1 to 500'],
    ['offset=-1', 'offset must be an integer from 0'],
    ['offset=1.5', 'offset must be an integer from 0'],
    ['offset=x', 'offset must be an integer from 0'],
    ['limit=1&limit=2', 'limit must be given once'],
  ])('rejects %s with a 400 naming the bounds', async (query, message) => {
    const { status, body } = await getJson(`${api.baseUrl}/tokens?${query}`)
    expect(status).toBe(400)
    expect(body.status).toBe('error')
    expect(body.message).toContain(message)
  })

  it('a producer-supplied id is served as the token id', async () => {
    const { body } = await getJson(`${api.baseUrl}/tokens/${addressFor('custom')}`)
    expect(body.result.id).toBe('custom-id')
  })

  describe('GET /tokens/:contract_address', () => {
    it('returns one token, for a lower-case or mixed-case address', async () => {
      for (const spelling of [usdc, mixedCase(usdc), usdc.toUpperCase().replace('0X', '0x')]) {
        const { status, body } = await getJson(`${api.baseUrl}/tokens/${spelling}`)
        expect(status).toBe(200)
        expect(body).toEqual({
          status: 'success',
          result: { id: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6, contract_address: usdc },
        })
      }
    })

    it('accepts a real EIP-55 checksummed address', async () => {
      const checksummed = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
      await insertTokens(rt, [{ contract_address: checksummed, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 }])
      try {
        const { status, body } = await getJson(`${api.baseUrl}/tokens/${checksummed}`)
        expect(status).toBe(200)
        expect(body.result.contract_address).toBe(checksummed.toLowerCase())
        expect(body.result.id).toBe(checksummed.toLowerCase())
      } finally {
        await rt.clickhouse.command({
          query: `DELETE FROM ${rt.tables.tokens} WHERE contract_address = {a:String}`,
          query_params: { a: checksummed.toLowerCase() },
        })
        await announceTokens(rt, [checksummed.toLowerCase()])
      }
    })

    it('404 for an unknown token, saying what was not found', async () => {
      const unknown = addressFor('nobody')
      const { status, body } = await getJson(`${api.baseUrl}/tokens/${unknown}`)
      expect(status).toBe(404)
      expect(body).toEqual({ status: 'error', message: `No token with contract address ${unknown}` })
    })

    it.each(['0x123', 'weth', `${addressFor('x')}00`, `0x${'g'.repeat(40)}`])('400 for the malformed address %s', async (bad) => {
      const { status, body } = await getJson(`${api.baseUrl}/tokens/${bad}`)
      expect(status).toBe(400)
      expect(body.status).toBe('error')
      expect(body.message).toContain('contract_address must be "0x" followed by 40 hexadecimal characters')
    })
  })

  describe('errors anywhere are JSON', () => {
    it('unknown path: 404 JSON', async () => {
      // (GET / is the chart page: test/chart-page.browser.test.ts)
      for (const path of ['/nope', '/tokens/a/b/c', '/chart-page/nope.js']) {
        const { status, body } = await getJson(`${api.baseUrl}${path}`)
        expect(status).toBe(404)
        expect(body.status).toBe('error')
        expect(body.message).toContain('No such endpoint')
      }
    })

    it('another method on a known path: 405 JSON with Allow', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/tokens`, { method: 'POST' })
      expect(status).toBe(405)
      expect(body.status).toBe('error')
    })

    it('malformed JSON body: 400 JSON, no stack trace', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/tokens`, {
        headers: { 'content-type': 'application/json' },
        body: '{"limit": ',
      })
      expect(status).toBe(400)
      expect(body.status).toBe('error')
      expect(body.message).toContain('not valid JSON')
      expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/)
    })

    it('an undecodable path or an oversized body: 400 JSON', async () => {
      let r = await getJson(`${api.baseUrl}/tokens/%E0%A4%A`)
      expect(r.status).toBe(400)
      expect(r.body.status).toBe('error')
      expect(r.body.message).toContain('not valid percent-encoding')
      r = await getJson(`${api.baseUrl}/tokens`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(100_000) }),
      })
      expect(r.status).toBe(400)
      expect(r.body.message).toContain('could not be read')
    })

    it('a failing database: 500 JSON without details', async () => {
      // Tokens are served from memory: a failing holdings table stands for any.
      const broken = await startTestApi({ ...rt, tables: { ...rt.tables, holdings: `${rt.tables.database}.no_such_table` } })
      try {
        const { status, body } = await getJson(`${broken.baseUrl}/holdings`)
        expect(status).toBe(500)
        expect(body).toEqual({ status: 'error', message: 'Internal error while handling the request' })
      } finally {
        await broken.close()
      }
    })
  })
})
