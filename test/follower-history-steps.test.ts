import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { erc20Abi, type Address, type Hex } from 'viem'
import { getJson } from './support/http.js'
import { startFollowerHarness, waitForCheckpoint, waitForFinalized, type FollowerHarness } from './support/follower-harness.js'
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy.js'

/**
 * History read one block per step (FOLLOW_MAX_LOG_RANGE=1), each step's range read ahead and
 * its records acknowledged while the next one is extracted, from a node without
 * eth_getBlockReceipts (the proxy refuses it, as some nodes do): every swap served once with
 * its transaction's sender, and each traded (wallet, token) holding read once at the
 * finalized block although the pair trades in several steps.
 */
const FINALITY = 2
let h: FollowerHarness
let proxy: RpcProxy
const trades: Array<{ hash: Hex; wallet: number }> = []

beforeAll(async () => {
  h = await startFollowerHarness({ FINALITY_DEPTH: String(FINALITY), FOLLOW_MAX_LOG_RANGE: '1' })
  proxy = await startRpcProxy(h.devnet.url, { refuse: ['eth_getBlockReceipts'] })
  const d = h.devnet.deployment
  const token = (i: number) => h.devnet.traders[i]!.tokens[0]!
  const plan: Array<[number, 'v2-single' | 'v3-single']> = [[0, 'v2-single'], [1, 'v2-single'], [0, 'v3-single'], [2, 'v2-single'], [1, 'v2-single'], [0, 'v2-single']]
  for (const [wallet, route] of plan) trades.push({ hash: await h.trade(wallet, route, [d.weth, token(wallet)], 1_000 + trades.length), wallet })
  await h.devnet.client.mine({ blocks: FINALITY })
}, 120_000)

afterAll(async () => {
  await h?.close()
  await proxy?.close()
})

const balanceOfCalls = () => proxy.calls.filter((c) => c.method === 'eth_call' && String((c.params?.[0] as { data?: string }).data).startsWith('0x70a08231'))

describe('follower history, step by step', () => {
  it('serves every swap once with its sender, reads senders from full blocks when the node has no block receipts, and each holding once', async () => {
    const head = Number(await h.devnet.client.getBlockNumber())
    const { follower } = await h.startFollower({ RPC_URL: proxy.url })
    await waitForCheckpoint(follower, head)
    const lastTradeBlock = Number((await h.devnet.client.getTransactionReceipt({ hash: trades[trades.length - 1]!.hash })).blockNumber)
    await waitForFinalized(follower, lastTradeBlock)

    for (const t of trades) {
      const { status, body } = await getJson(`${h.api.baseUrl}/swap-transactions/${t.hash}`)
      expect(status).toBe(200)
      expect(body.result.wallet_address).toBe(h.devnet.traders[t.wallet]!.address.toLowerCase())
    }
    const { body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}`)
    expect(body.pagination.total).toBe(trades.length)

    expect(proxy.calls.some((c) => c.method === 'eth_getBlockReceipts')).toBe(true)
    expect(proxy.calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params?.[1] === true)).toBe(true)

    // Wallets 0, 1 and 2 each traded WETH for their token: six pairs, read once each.
    const d = h.devnet.deployment
    const pairs = new Map<string, [Address, Address]>()
    for (const t of trades) {
      const wallet = h.devnet.traders[t.wallet]!.address
      for (const token of [d.weth.address, h.devnet.traders[t.wallet]!.tokens[0]!.address]) pairs.set(`${wallet}-${token}`.toLowerCase(), [wallet, token])
    }
    expect(balanceOfCalls()).toHaveLength(pairs.size)
    for (const [id, [wallet, token]] of pairs) {
      const { status, body: holding } = await getJson(`${h.api.baseUrl}/holdings/${id}`)
      expect(status, id).toBe(200)
      const balance = await h.devnet.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })
      expect(holding.result.balance_raw, id).toBe(balance.toString())
    }
  }, 90_000)
})
