import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor, insertHoldings, insertTokens, mixedCase } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { pageThrough } from './support/paging.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const MAX_UINT256 = ((1n << 256n) - 1n).toString()

describe('holdings endpoints', () => {
  let rt: TestRuntime
  let api: TestApi
  const usdc = addressFor('usdc')
  const weth = addressFor('weth')
  const bare = addressFor('no-metadata') // a token with holdings but no metadata yet
  const listed = addressFor('listed-no-holdings')
  const wallets = Array.from({ length: 6 }, (_, i) => addressFor(`wallet-${i}`))
  const asOf = Date.UTC(2025, 0, 15, 12, 0, 0, 123)

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [
      { contract_address: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      { contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 },
      { contract_address: listed, name: 'Listed', symbol: 'LST', decimals: 0 },
    ])
    // 18 holdings; value_usd has ties (several 100s) and nulls, so the id tie-breaker matters.
    const rows = wallets.flatMap((wallet, i) => [
      { wallet_address: wallet, contract_address: usdc, balance_raw: '1234567', value_usd: 100, as_of: asOf },
      { wallet_address: wallet, contract_address: weth, balance_raw: MAX_UINT256, value_usd: i % 2 === 0 ? null : 5000 + i, as_of: asOf },
      { wallet_address: wallet, contract_address: bare, balance_raw: '42', value_usd: i === 0 ? 7 : null, as_of: asOf },
    ])
    await insertHoldings(rt, rows)
    // Re-delivered: the same holding written again with the same as_of, and once more newer.
    await insertHoldings(rt, rows.slice(0, 3))
    await insertHoldings(rt, [{ wallet_address: wallets[5]!, contract_address: usdc, balance_raw: '2000000', value_usd: 100, as_of: asOf + 1 }])
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('GET /holdings: the holding shape, with the token embedded and both amounts', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/holdings`)
    expect(status).toBe(200)
    expect(body.status).toBe('success')
    expect(body.pagination).toEqual({ total: 18, limit: 50, offset: 0 })
    const holding = body.result.find((h: any) => h.id === `${wallets[1]}-${usdc}`)
    expect(holding).toEqual({
      id: `${wallets[1]}-${usdc}`,
      wallet_address: wallets[1],
      token: { id: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6, contract_address: usdc },
      balance_raw: '1234567',
      balance: 1.234567,
      value_usd: 100,
      updated_at: '2025-01-15T12:00:00.123Z',
    })
  })

  it('a uint256 balance above 2^53 comes back digit for digit', async () => {
    const { body } = await getJson(`${api.baseUrl}/holdings/${wallets[0]}-${weth}`)
    expect(body.result.balance_raw).toBe(MAX_UINT256)
    expect(body.result.balance).toBeCloseTo(115792089237316195423570985008687907853269984665640564039457.584, -50)
  })

  it('a holding whose token has no metadata: null token fields, raw amount only', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/holdings/${wallets[0]}-${bare}`)
    expect(status).toBe(200)
    expect(body.result).toEqual({
      id: `${wallets[0]}-${bare}`,
      wallet_address: wallets[0],
      token: { id: bare, name: null, symbol: null, decimals: null, contract_address: bare },
      balance_raw: '42',
      balance: null,
      value_usd: 7,
      updated_at: '2025-01-15T12:00:00.123Z',
    })
  })

  it('the newest as_of wins, and a re-delivered holding is served and counted once', async () => {
    const { body } = await getJson(`${api.baseUrl}/holdings?limit=500`)
    const ids = body.result.map((h: any) => h.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(body.pagination.total).toBe(18)
    const newest = body.result.find((h: any) => h.id === `${wallets[5]}-${usdc}`)
    expect(newest.balance_raw).toBe('2000000')
    expect(newest.updated_at).toBe('2025-01-15T12:00:00.124Z')
  })

  it('orders by value_usd desc (nulls last) then id; paging returns each holding once', async () => {
    const all = (await getJson(`${api.baseUrl}/holdings?limit=500`)).body.result as any[]
    const key = (h: any) => [h.value_usd === null ? -Infinity : h.value_usd, h.id] as const
    const sorted = [...all].sort((a, b) => {
      const [va, ia] = key(a)
      const [vb, ib] = key(b)
      return va !== vb ? vb - va : ia < ib ? -1 : 1
    })
    expect(all.map((h) => h.id)).toEqual(sorted.map((h) => h.id))
    expect(all.at(-1).value_usd).toBeNull()
    for (const limit of [1, 4, 5]) {
      const { records, totals } = await pageThrough(`${api.baseUrl}/holdings`, limit)
      expect(new Set(totals)).toEqual(new Set([18]))
      expect(records.map((h) => h.id)).toEqual(all.map((h) => h.id))
    }
  })

  it('GET /holdings/token/:contract_address: only that token, paged, any address case', async () => {
    const { records, totals } = await pageThrough(`${api.baseUrl}/holdings/token/${mixedCase(weth)}`, 4)
    expect(new Set(totals)).toEqual(new Set([6]))
    expect(records).toHaveLength(6)
    expect(new Set(records.map((h) => h.wallet_address))).toEqual(new Set(wallets))
    for (const h of records) expect(h.token.contract_address).toBe(weth)
  })

  it('holdings of a token without metadata are served', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/holdings/token/${bare}`)
    expect(status).toBe(200)
    expect(body.pagination.total).toBe(6)
  })

  it('a known token without holdings: an empty page', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/holdings/token/${listed}`)
    expect(status).toBe(200)
    expect(body).toEqual({ status: 'success', result: [], pagination: { total: 0, limit: 50, offset: 0 } })
  })

  it('an unknown token: 404; a malformed address: 400; bad paging: 400', async () => {
    const unknown = addressFor('unknown-token')
    let r = await getJson(`${api.baseUrl}/holdings/token/${unknown}`)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ status: 'error', message: `No token with contract address ${unknown}` })
    r = await getJson(`${api.baseUrl}/holdings/token/0xnope`)
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('contract_address must be "0x" followed by 40 hexadecimal characters')
    r = await getJson(`${api.baseUrl}/holdings/token/${weth}?limit=501`)
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('limit must be an integer from 1 to 500')
    r = await getJson(`${api.baseUrl}/holdings?offset=-5`)
    expect(r.status).toBe(400)
    expect(r.body.message).toContain('offset must be an integer from 0')
  })

  describe('GET /holdings/:id', () => {
    it('accepts the id in any case', async () => {
      const id = `${mixedCase(wallets[2]!)}-${mixedCase(usdc)}`
      const { status, body } = await getJson(`${api.baseUrl}/holdings/${id}`)
      expect(status).toBe(200)
      expect(body.status).toBe('success')
      expect(body.result.id).toBe(`${wallets[2]}-${usdc}`)
    })

    it('404 for an unknown holding, naming it', async () => {
      const id = `${wallets[0]}-${listed}`
      const { status, body } = await getJson(`${api.baseUrl}/holdings/${id}`)
      expect(status).toBe(404)
      expect(body).toEqual({ status: 'error', message: `No holding with id ${id}` })
    })

    it('400 for a malformed id', async () => {
      for (const bad of ['abc', `${wallets[0]}`, `${wallets[0]}-0x12`, `${wallets[0]}_${usdc}`]) {
        const { status, body } = await getJson(`${api.baseUrl}/holdings/${bad}`)
        expect(status).toBe(400)
        expect(body.status).toBe('error')
        expect(body.message).toContain('id must be a holding id')
      }
    })
  })
})
