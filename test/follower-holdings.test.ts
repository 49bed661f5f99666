import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { erc20Abi, type Address } from 'viem'
import type { DeployedToken } from '../devnet/deploy-devnet.js'
import { getJson } from './support/http.js'
import { startFollowerHarness, waitForCheckpoint, waitForFinalized, type FollowerHarness } from './support/follower-harness.js'

/**
 * Holdings from the chain: when a wallet's swap is final, the follower reads its balance of
 * both tokens (ERC-20 balanceOf) at the newest finalized block and sends a holding record;
 * a trade not yet final leaves the holding as it was.
 */
const FINALITY = 3
let h: FollowerHarness

beforeAll(async () => {
  h = await startFollowerHarness({ FINALITY_DEPTH: String(FINALITY) })
}, 120_000)

afterAll(async () => {
  await h?.close()
})

async function balanceAt(wallet: Address, token: DeployedToken, block: bigint): Promise<bigint> {
  return h.devnet.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet], blockNumber: block })
}

async function holding(wallet: Address, token: DeployedToken): Promise<{ status: number; balance_raw?: string; value_usd?: number | null; updated_at?: string }> {
  const { status, body } = await getJson(`${h.api.baseUrl}/holdings/${wallet}-${token.address}`)
  return { status, ...(status === 200 ? body.result : {}) }
}

async function blockTime(block: bigint): Promise<string> {
  return new Date(Number((await h.devnet.client.getBlock({ blockNumber: block })).timestamp) * 1000).toISOString()
}

describe('follower holdings', () => {
  it("serves a trading wallet's holdings as balanceOf at the finalized block, refreshed when its next trade is final", async () => {
    const d = h.devnet.deployment
    const wallet = h.devnet.traders[0]!.address
    const other = h.devnet.traders[2]!.address
    const token = h.devnet.traders[0]!.tokens[0]!
    const { follower } = await h.startFollower()
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()))
    expect((await holding(wallet, token)).status).toBe(404)

    // A trade, then enough blocks for it to be final: the follower reads at head − FINALITY.
    const first = await h.trade(0, 'v2-single', [d.weth, token], 5_000)
    const firstBlock = (await h.devnet.client.getTransactionReceipt({ hash: first })).blockNumber
    await h.devnet.client.mine({ blocks: FINALITY })
    await waitForFinalized(follower, Number(firstBlock))
    for (const t of [token, d.weth]) {
      const held = await holding(wallet, t)
      expect(held.status, t.symbol).toBe(200)
      expect(held.balance_raw, t.symbol).toBe((await balanceAt(wallet, t, firstBlock)).toString())
      expect(held.updated_at, t.symbol).toBe(await blockTime(firstBlock))
    }
    const weth = await holding(wallet, d.weth)
    expect(weth.value_usd).toBeGreaterThan(0)
    // Valued at the follower's WETH price, about $3,000 (the stablecoin pools).
    expect(weth.value_usd! / (Number(weth.balance_raw) / 1e18)).toBeCloseTo(3_000, 0)
    // A wallet that did not trade has no holding read.
    expect((await holding(other, token)).status).toBe(404)

    // The next trade: served at once as a swap, but the holding waits for its block to be final.
    const second = await h.trade(0, 'v3-single', [token, d.weth], 3_000)
    const secondBlock = (await h.devnet.client.getTransactionReceipt({ hash: second })).blockNumber
    await h.devnet.client.mine({ blocks: 1 })
    await waitForCheckpoint(follower, Number(secondBlock) + 1)
    expect(follower.finalizedThrough).toBeLessThan(Number(secondBlock))
    expect((await getJson(`${h.api.baseUrl}/swap-transactions/${second}`)).status).toBe(200)
    const before = await balanceAt(wallet, token, firstBlock)
    expect(await balanceAt(wallet, token, secondBlock)).not.toBe(before)
    expect((await holding(wallet, token)).balance_raw).toBe(before.toString())

    await h.devnet.client.mine({ blocks: FINALITY - 1 })
    await waitForFinalized(follower, Number(secondBlock))
    for (const t of [token, d.weth]) {
      const held = await holding(wallet, t)
      expect(held.balance_raw, t.symbol).toBe((await balanceAt(wallet, t, secondBlock)).toString())
      expect(held.updated_at, t.symbol).toBe(await blockTime(secondBlock))
    }
    expect(follower.stats.holdings).toBe(4)
  }, 90_000)
})
