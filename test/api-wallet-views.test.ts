import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressFor, hashFor, insertHoldings, insertSwaps, insertTokens } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2025, 6, 1, 0, 0, 0)
const HOUR = 3_600_000
const WINDOW = `start_time=${T0}&end_time=${T0 + 24 * HOUR}`

/** GET /wallets/:address/holdings and GET /tokens/:address/flows on hand-made data. */
describe('wallet views and token flows', () => {
  let rt: TestRuntime
  let api: TestApi
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => addressFor(`views-${n}`)) as [string, string, string]
  const usdc = addressFor('views-usdc')
  const weth = addressFor('views-weth')
  const link = addressFor('views-link')
  /** 1.5 WETH and friends: amounts beyond 2^64, summed exactly. */
  const E18 = 10n ** 18n
  const buy = (n: number, wallet: string, weth18: bigint, usd: number | null, at = T0 + n * HOUR) => ({
    hash: hashFor(`views-${n}`),
    timestamp: at,
    wallet_address: wallet,
    token_sold_address: usdc,
    token_sold_amount: '1000000',
    token_bought_address: weth,
    token_bought_amount: weth18.toString(),
    value_usd: usd,
  })
  const sell = (n: number, wallet: string, weth18: bigint, usd: number | null, at = T0 + n * HOUR) => ({
    ...buy(n, wallet, 0n, usd, at),
    token_sold_address: weth,
    token_sold_amount: weth18.toString(),
    token_bought_address: usdc,
    token_bought_amount: '1000000',
  })

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [
      { contract_address: usdc, symbol: 'USDC', decimals: 6 },
      { contract_address: weth, symbol: 'WETH', decimals: 18 },
      { contract_address: link, symbol: 'LINK', decimals: 18 },
    ])
    const swaps = [
      buy(1, alice, 3n * E18, 100),
      buy(2, alice, 5n * E18, 200),
      buy(3, alice, E18 / 2n, null),
      sell(4, alice, 2n * E18, 50),
      sell(5, bob, 7n * E18, 300),
      sell(6, bob, E18, 100),
      buy(7, carol, E18, 10),
      buy(8, carol, 100n * E18, 1_000_000, T0 - HOUR), // before the window
    ]
    await insertSwaps(rt, swaps)
    await insertSwaps(rt, [swaps[0]!, swaps[4]!]) // delivered twice: counted once
    await insertHoldings(rt, [
      { wallet_address: alice, contract_address: weth, balance_raw: (65n * E18).toString(), value_usd: 20 },
      { wallet_address: alice, contract_address: usdc, balance_raw: '10000000', value_usd: 10 },
      { wallet_address: alice, contract_address: link, value_usd: null },
      { wallet_address: bob, contract_address: weth, value_usd: 5 },
    ])
  })

  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it("serves one wallet's holdings, largest value first, with the USD total", async () => {
    const { status, body } = await getJson(`${api.baseUrl}/wallets/${alice.toUpperCase().replace('0X', '0x')}/holdings`)
    expect(status).toBe(200)
    expect(body.pagination).toEqual({ total: 3, limit: 50, offset: 0 })
    expect(body.summary).toEqual({ wallet_address: alice, total_value_usd: 30, holdings_without_value: 1 })
    expect(body.result.map((h: { token: { symbol: string } }) => h.token.symbol)).toEqual(['WETH', 'USDC', 'LINK'])
    expect(body.result[0].balance_raw).toBe((65n * E18).toString())
    const second = await getJson(`${api.baseUrl}/wallets/${alice}/holdings?limit=1&offset=1`)
    expect(second.body.result.map((h: { token: { symbol: string } }) => h.token.symbol)).toEqual(['USDC'])
    const nobody = await getJson(`${api.baseUrl}/wallets/${addressFor('views-nobody')}/holdings`)
    expect(nobody.status).toBe(200)
    expect(nobody.body.pagination.total).toBe(0)
    expect(nobody.body.summary.total_value_usd).toBe(0)
  })

  it("serves one wallet's swaps as /swap-transactions?address= does, cursor included", async () => {
    const underPath = await getJson(`${api.baseUrl}/wallets/${alice}/swaps?${WINDOW}&limit=2`)
    const byQuery = await getJson(`${api.baseUrl}/swap-transactions?${WINDOW}&address=${alice}&limit=2`)
    expect(underPath.status).toBe(200)
    expect(underPath.body).toEqual(byQuery.body)
    expect(underPath.body.pagination.total).toBe(4)
    const next = await getJson(`${api.baseUrl}/wallets/${alice}/swaps?${WINDOW}&limit=2&cursor=${underPath.body.pagination.next_cursor}`)
    expect(next.body.result.map((s: { hash: string }) => s.hash)).toEqual([hashFor('views-2'), hashFor('views-1')])
    const unknown = await getJson(`${api.baseUrl}/wallets/${alice}/swaps?${WINDOW}&address=${bob}`)
    expect(unknown.status).toBe(400)
  })

  it('refuses a malformed wallet address', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/wallets/0x123/holdings`)
    expect(status).toBe(400)
    expect(body.status).toBe('error')
  })

  it('sums what the wallets bought and sold of a token over the window, exactly', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/tokens/${weth}/flows?${WINDOW}`)
    expect(status).toBe(200)
    const flows = body.result
    expect(flows.token.symbol).toBe('WETH')
    expect(flows.swaps).toBe(7)
    expect(flows.swaps_without_usd).toBe(1)
    const bought = 3n * E18 + 5n * E18 + E18 / 2n + E18
    const sold = 2n * E18 + 7n * E18 + E18
    expect(flows.bought).toEqual({ amount_raw: bought.toString(), amount: 9.5, value_usd: 310, swaps: 4, wallets: 2 })
    expect(flows.sold).toEqual({ amount_raw: sold.toString(), amount: 10, value_usd: 450, swaps: 3, wallets: 2 })
    expect(flows.net).toEqual({ amount_raw: (bought - sold).toString(), amount: -0.5, value_usd: -140 })
    expect(flows.top_buyers.map((w: { wallet_address: string; net_value_usd: number }) => [w.wallet_address, w.net_value_usd])).toEqual([
      [alice, 250],
      [carol, 10],
    ])
    expect(flows.top_sellers).toEqual([
      {
        wallet_address: bob,
        net_value_usd: -400,
        bought_amount_raw: '0',
        sold_amount_raw: (8n * E18).toString(),
        bought_value_usd: 0,
        sold_value_usd: 400,
      },
    ])
    const top1 = await getJson(`${api.baseUrl}/tokens/${weth}/flows?${WINDOW}&top=1`)
    expect(top1.body.result.top_buyers).toHaveLength(1)
  })

  it('answers an empty window with zeros, and errors as the other endpoints do', async () => {
    const empty = await getJson(`${api.baseUrl}/tokens/${weth}/flows?start_time=${T0 + 100 * HOUR}&end_time=${T0 + 101 * HOUR}`)
    expect(empty.status).toBe(200)
    expect(empty.body.result).toMatchObject({ swaps: 0, bought: { amount_raw: '0', wallets: 0 }, top_buyers: [], top_sellers: [] })
    expect((await getJson(`${api.baseUrl}/tokens/${addressFor('views-unknown')}/flows?${WINDOW}`)).status).toBe(404)
    for (const query of [`start_time=${T0}`, `${WINDOW}&top=0`, `${WINDOW}&top=101`, `start_time=${T0}&end_time=${T0 + 30 * 24 * HOUR + 1}`]) {
      const { status, body } = await getJson(`${api.baseUrl}/tokens/${weth}/flows?${query}`)
      expect(status).toBe(400)
      expect(body.status).toBe('error')
    }
  })
})
