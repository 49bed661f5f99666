import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import type { TradeRoute } from '../devnet/traders.js'
import type { DeployedToken } from '../devnet/deploy-devnet.js'
import { getJson } from './support/http.js'
import { netTransfersOf, startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'

/**
 * The follower on a local chain with the real Uniswap V2 and V3 contracts: every kind of
 * trade through the routers, then each swap served by the API compared with what the
 * transaction's receipt says its sender paid and received (ERC-20 Transfer events).
 */
let h: FollowerHarness
const trades: Array<{ name: string; hash: Hex; dex: string }> = []

beforeAll(async () => {
  h = await startFollowerHarness()
  const d = h.devnet.deployment
  const trader = h.devnet.traders[0]!
  const token = trader.tokens[0]!
  const usdc = d.stablecoins[0]!
  const plan: Array<[string, TradeRoute, DeployedToken[], string]> = [
    ['v2 WETH → token', 'v2-single', [d.weth, token], 'uniswap-v2'],
    ['v2 token → WETH', 'v2-single', [token, d.weth], 'uniswap-v2'],
    ['v3 WETH → token', 'v3-single', [d.weth, token], 'uniswap-v3'],
    ['v3 token → WETH', 'v3-single', [token, d.weth], 'uniswap-v3'],
    ['v2 multi-hop token → WETH → USDC', 'v2-multi', [token, d.weth, usdc], 'uniswap-v2'],
    ['v3 multi-hop USDC → WETH → token', 'v3-multi', [usdc, d.weth, token], 'uniswap-v3'],
  ]
  for (const [name, route, path, dex] of plan) trades.push({ name, hash: await h.trade(0, route, path, 2_500), dex })
}, 120_000)

afterAll(async () => {
  await h?.close()
})

describe('follower on anvil', () => {
  it('stores one swap per transaction with the amounts the receipts show, V2 and V3 both ways, multi-hop netted', async () => {
    const { follower } = await h.startFollower()
    const last = await h.devnet.client.getTransactionReceipt({ hash: trades[trades.length - 1]!.hash })
    await waitForCheckpoint(follower, Number(last.blockNumber))
    for (const t of trades) {
      const expected = await netTransfersOf(h.devnet, t.hash)
      const sold = [...expected].filter(([, v]) => v < 0n)
      const bought = [...expected].filter(([, v]) => v > 0n)
      expect(sold, t.name).toHaveLength(1)
      expect(bought, t.name).toHaveLength(1)
      const { status, body } = await getJson(`${h.api.baseUrl}/swap-transactions/${t.hash}`)
      expect(status, t.name).toBe(200)
      const swap = body.result
      expect(swap.wallet_address, t.name).toBe(h.devnet.traders[0]!.address.toLowerCase())
      expect(swap.token_sold.contract_address, t.name).toBe(sold[0]![0])
      expect(swap.token_sold.amount_raw, t.name).toBe((-sold[0]![1]).toString())
      expect(swap.token_bought.contract_address, t.name).toBe(bought[0]![0])
      expect(swap.token_bought.amount_raw, t.name).toBe(bought[0]![1].toString())
      expect(swap.dex, t.name).toBe(t.dex)
      expect(swap.block_number, t.name).toBe(Number((await h.devnet.client.getTransactionReceipt({ hash: t.hash })).blockNumber))
    }
    expect(follower.stats.snapshot().unnetted).toBe(0)
  }, 60_000)

  it('values swaps in USD from the pools (a USDC leg at its face value) and serves token metadata read from the contracts', async () => {
    const usdc = h.devnet.deployment.stablecoins[0]!
    const multi = trades.find((t) => t.name.startsWith('v3 multi-hop'))!
    const expected = await netTransfersOf(h.devnet, multi.hash)
    const paidUsdc = -expected.get(usdc.address.toLowerCase())!
    const { body } = await getJson(`${h.api.baseUrl}/swap-transactions/${multi.hash}`)
    expect(body.result.value_usd).toBeCloseTo(Number(paidUsdc) / 1e6, 2)
    const weth = trades[0]!
    const wethSwap = (await getJson(`${h.api.baseUrl}/swap-transactions/${weth.hash}`)).body.result
    // About $2,500 of WETH at the devnet's $3,000 per WETH (the pools' ratio), within price impact.
    expect(wethSwap.value_usd).toBeGreaterThan(2_400)
    expect(wethSwap.value_usd).toBeLessThan(2_600)
    const token = await getJson(`${h.api.baseUrl}/tokens/${usdc.address}`)
    expect(token.body.result).toMatchObject({ symbol: 'USDC', name: 'USD Coin', decimals: 6 })
  })
})
