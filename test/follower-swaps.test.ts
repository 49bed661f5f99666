import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import type { TradeRoute } from '../devnet/traders.js'
import type { DeployedToken } from '../devnet/deploy-devnet.js'
import type { ChainFollower } from '../follower/chain-follower.js'
import { getJson } from './support/http.js'
import { poolPrice } from './support/devnet-pool-prices.js'
import { netTransfersOf, startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'

/**
 * The follower on a local chain with the real Uniswap V2 and V3 contracts: every kind of
 * trade through the routers, then each swap served by the API compared with what the
 * transaction's receipt says its sender paid and received (ERC-20 Transfer events).
 */
let h: FollowerHarness
let follower: ChainFollower
const trades: Array<{ name: string; hash: Hex; dex: string }> = []
/** A whale's sale of a token for WETH, large enough to move the token's own pool price by a quarter. */
let sale: { hash: Hex; token: DeployedToken }

beforeAll(async () => {
  h = await startFollowerHarness()
  const d = h.devnet.deployment
  const trader = h.devnet.traders[0]!
  const token = trader.tokens[0]!
  const usdc = d.stablecoins[0]!
  const trade = async ([name, route, path, dex]: [string, TradeRoute, DeployedToken[], string]) => {
    trades.push({ name, hash: await h.trade(0, route, path, 2_500), dex })
  }
  const plan: Array<[string, TradeRoute, DeployedToken[], string]> = [
    ['v2 WETH → token', 'v2-single', [d.weth, token], 'uniswap-v2'],
    ['v2 token → WETH', 'v2-single', [token, d.weth], 'uniswap-v2'],
    ['v3 WETH → token', 'v3-single', [d.weth, token], 'uniswap-v3'],
    ['v3 token → WETH', 'v3-single', [token, d.weth], 'uniswap-v3'],
    ['v2 WETH → USDC', 'v2-single', [d.weth, usdc], 'uniswap-v2'],
  ]
  for (const step of plan) await trade(step)
  const sold = trader.tokens[1]!
  sale = { hash: await h.trade(d.deployer, 'v2-single', [sold, d.weth], 300_000), token: sold }
  // Both move WETH's stablecoin pools after the sale.
  await trade(['v2 multi-hop token → WETH → USDC', 'v2-multi', [token, d.weth, usdc], 'uniswap-v2'])
  await trade(['v3 multi-hop USDC → WETH → token', 'v3-multi', [usdc, d.weth, token], 'uniswap-v3'])
  follower = (await h.startFollower()).follower
  await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()))
}, 120_000)

afterAll(async () => {
  await h?.close()
})

describe('follower on anvil', () => {
  it('stores one swap per transaction with the amounts the receipts show, V2 and V3 both ways, multi-hop netted', async () => {
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

  it("values a sale of a token for WETH by its WETH side at WETH's stablecoin-pool price of the moment, not by the price the sale moved the token to", async () => {
    const d = h.devnet.deployment
    const block = (await h.devnet.client.getTransactionReceipt({ hash: sale.hash })).blockNumber
    const movedTo = (await poolPrice(h.devnet, 'v2', sale.token, d.weth, block)) / (await poolPrice(h.devnet, 'v2', sale.token, d.weth, block - 1n))
    expect(movedTo).toBeLessThan(0.8)
    // WETH's price at the sale: the V2 WETH/USDC reserves, last moved by the WETH → USDC trade before it.
    const wethUsd = await poolPrice(h.devnet, 'v2', d.weth, d.stablecoins[0]!, block)
    const wethReceived = (await netTransfersOf(h.devnet, sale.hash)).get(d.weth.address.toLowerCase())!
    const { status, body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}&address=${d.deployer}`)
    expect(status).toBe(200)
    expect(body.result.map((s: { hash: string }) => s.hash)).toEqual([sale.hash])
    const swap = body.result[0]
    expect([swap.token_sold.contract_address, swap.token_bought.contract_address]).toEqual([sale.token.address.toLowerCase(), d.weth.address.toLowerCase()])
    expect(swap.token_bought.amount_raw).toBe(wethReceived.toString())
    // To the cent: value_usd is rounded to it.
    expect(swap.value_usd).toBeCloseTo((Number(wethReceived) / 1e18) * wethUsd, 2)
  })
})
