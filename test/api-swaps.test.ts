import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor, hashFor, insertSwaps, insertTokens, mixedCase } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { pageThrough } from './support/paging.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const MAX_UINT256 = ((1n << 256n) - 1n).toString()
const T0 = Date.UTC(2025, 1, 1, 0, 0, 0, 0)
const HOUR = 3_600_000

describe('swap transaction endpoints', () => {
  let rt: TestRuntime
  let api: TestApi
  const usdc = addressFor('usdc')
  const weth = addressFor('weth')
  const custom = addressFor('custom') // has a producer-supplied id
  const bare = addressFor('bare') // no metadata
  const alice = addressFor('alice')
  const bob = addressFor('bob')
  const range = `start_time=${T0}&end_time=${T0 + 100 * HOUR}`

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [
      { contract_address: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      { contract_address: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18 },
      { contract_address: custom, id: 'custom-token', name: 'Custom', symbol: 'CUS', decimals: 2 },
    ])
    // 30 swaps over 10 distinct timestamps: ties on the time, so the hash decides.
    const rows = Array.from({ length: 30 }, (_, i) => ({
      hash: hashFor(`swap-${i}`),
      timestamp: T0 + (i % 10) * HOUR,
      wallet_address: i % 3 === 0 ? alice : bob,
      token_sold_address: i % 5 === 0 ? bare : usdc,
      token_sold_amount: '2500000',
      token_bought_address: i % 4 === 0 ? custom : weth,
      token_bought_amount: i === 7 ? MAX_UINT256 : '1000000000000000000',
      value_usd: i % 6 === 0 ? null : 2.5,
      dex: i % 2 === 0 ? 'uniswap-v3' : null,
      block_number: 21_000_000 + i,
    }))
    await insertSwaps(rt, rows)
    // A swap delivered again (a retry): served once, counted once.
    await insertSwaps(rt, rows.slice(0, 4))
    // Outside the range.
    await insertSwaps(rt, [{ hash: hashFor('old'), timestamp: T0 - 1, wallet_address: alice }])
    await insertSwaps(rt, [{ hash: hashFor('late'), timestamp: T0 + 100 * HOUR + 1, wallet_address: alice }])
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('GET /swap-transactions: the swap shape, tokens embedded with raw and decimal amounts', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?${range}`)
    expect(status).toBe(200)
    expect(body.status).toBe('success')
    expect(body.pagination).toEqual({ total: 30, limit: 50, offset: 0, next_cursor: null })
    const swap = body.result.find((s: any) => s.hash === hashFor('swap-1'))
    expect(swap).toEqual({
      hash: hashFor('swap-1'),
      chain_id: 1,
      block_number: 21_000_001,
      timestamp: '2025-02-01T01:00:00.000Z',
      timestamp_ms: T0 + HOUR,
      wallet_address: bob,
      token_sold: {
        id: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6, contract_address: usdc,
        amount_raw: '2500000', amount: 2.5,
      },
      token_bought: {
        id: weth, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, contract_address: weth,
        amount_raw: '1000000000000000000', amount: 1,
      },
      value_usd: 2.5,
      dex: null,
    })
  })

  it('a swap whose token has no metadata is served with null fields and the raw amount', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/swap-transactions/${hashFor('swap-0')}`)
    expect(status).toBe(200)
    expect(body.result.token_sold).toEqual({
      id: bare, name: null, symbol: null, decimals: null, contract_address: bare, amount_raw: '2500000', amount: null,
    })
    expect(body.result.token_bought).toMatchObject({ id: 'custom-token', symbol: 'CUS', amount: 10_000_000_000_000_000 })
    expect(body.result.value_usd).toBeNull()
    expect(body.result.dex).toBe('uniswap-v3')
  })

  it('a uint256 amount above 2^53 comes back digit for digit', async () => {
    const { body } = await getJson(`${api.baseUrl}/swap-transactions/${hashFor('swap-7')}`)
    expect(body.result.token_bought.amount_raw).toBe(MAX_UINT256)
  })

  it('orders newest first then by hash; paging returns each swap once', async () => {
    const all = (await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=500`)).body.result as any[]
    expect(all).toHaveLength(30)
    expect(new Set(all.map((s) => s.hash)).size).toBe(30)
    const sorted = [...all].sort((a, b) => b.timestamp_ms - a.timestamp_ms || (a.hash < b.hash ? -1 : 1))
    expect(all.map((s) => s.hash)).toEqual(sorted.map((s) => s.hash))
    for (const limit of [1, 7, 10]) {
      const { records, totals } = await pageThrough(`${api.baseUrl}/swap-transactions?${range}`, limit)
      expect(new Set(totals)).toEqual(new Set([30]))
      expect(records.map((s) => s.hash)).toEqual(all.map((s) => s.hash))
    }
  })

  it('start_time and end_time are inclusive bounds', async () => {
    const { body } = await getJson(`${api.baseUrl}/swap-transactions?start_time=${T0 + HOUR}&end_time=${T0 + 2 * HOUR}`)
    expect(body.pagination.total).toBe(6)
    for (const s of body.result) expect([T0 + HOUR, T0 + 2 * HOUR]).toContain(s.timestamp_ms)
    const wide = await getJson(`${api.baseUrl}/swap-transactions?start_time=0&end_time=${Number.MAX_SAFE_INTEGER}`)
    expect(wide.body.pagination.total).toBe(32)
  })

  it('address filters by wallet, in any case', async () => {
    const { records, totals } = await pageThrough(`${api.baseUrl}/swap-transactions?${range}&address=${mixedCase(alice)}`, 4)
    expect(new Set(totals)).toEqual(new Set([10]))
    for (const s of records) expect(s.wallet_address).toBe(alice)
  })

  it('token_id matches the sold or bought token: derived ids, producer ids, tokens without metadata', async () => {
    const count = async (query: string) =>
      (await getJson(`${api.baseUrl}/swap-transactions?${range}&${query}`)).body.pagination.total as number
    expect(await count(`token_id=${usdc}`)).toBe(24) // sold in every swap but i % 5 === 0
    expect(await count(`token_id=${mixedCase(usdc)}`)).toBe(24)
    expect(await count('token_id=custom-token')).toBe(8) // bought when i % 4 === 0
    expect(await count(`token_id=${bare}`)).toBe(6) // no metadata: its derived id
    expect(await count(`token_id=${custom}`)).toBe(0) // its id is custom-token, not its address
    expect(await count('token_id=no-such-token')).toBe(0)
    expect(await count(`token_id=${usdc}&address=${alice}`)).toBe(8)
  })

  it.each([
    ['', 'start_time is required'],
    [`end_time=${T0}`, 'start_time is required'],
    [`start_time=${T0}`, 'end_time is required'],
    [`start_time=abc&end_time=${T0}`, 'start_time must be a non-negative integer number of milliseconds'],
    [`start_time=${T0}&end_time=1.5`, 'end_time must be a non-negative integer number of milliseconds'],
    [`start_time=-1&end_time=${T0}`, 'start_time must be a non-negative integer'],
    [`start_time=${T0 + 1}&end_time=${T0}`, 'start_time (' ],
    [`${range}&address=0x12`, 'address must be "0x" followed by 40 hexadecimal characters'],
    [`${range}&token_id=`, 'token_id must not be empty'],
    [`${range}&limit=0`, 'limit must be an integer from 1 to 500'],
    [`${range}&offset=a`, 'offset must be an integer from 0'],
  ])('400 for "%s"', async (query, message) => {
    const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?${query}`)
    expect(status).toBe(400)
    expect(body.status).toBe('error')
    expect(body.message).toContain(message)
  })

  describe('GET /swap-transactions/:hash', () => {
    it('accepts the hash in any case', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/swap-transactions/${hashFor('swap-3').toUpperCase().replace('0X', '0x')}`)
      expect(status).toBe(200)
      expect(body.status).toBe('success')
      expect(body.result.hash).toBe(hashFor('swap-3'))
    })

    it('404 for an unknown hash, 400 for a malformed one', async () => {
      const unknown = hashFor('never')
      let r = await getJson(`${api.baseUrl}/swap-transactions/${unknown}`)
      expect(r.status).toBe(404)
      expect(r.body).toEqual({ status: 'error', message: `No swap transaction with hash ${unknown}` })
      r = await getJson(`${api.baseUrl}/swap-transactions/0xabc`)
      expect(r.status).toBe(400)
      expect(r.body.message).toContain('hash must be "0x" followed by 64 hexadecimal characters')
    })
  })
})
