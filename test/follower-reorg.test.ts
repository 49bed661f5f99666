import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { tradeTx } from '../devnet/traders.js'
import { rawAmount } from '../devnet/market.js'
import { getJson } from './support/http.js'
import { startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'

/**
 * A reorg on anvil (anvil_reorg replaces the newest blocks with other transactions): the
 * follower retracts exactly the orphaned blocks' swaps through the queue and stores the
 * canonical ones; the API then serves the canonical chain, lists, totals and candles included.
 */
let h: FollowerHarness

beforeAll(async () => {
  // The chain starts three hours ago, so its trades fall in closed (served) candles.
  h = await startFollowerHarness({ FINALITY_DEPTH: '6' }, 4, Math.floor(Date.now() / 1000) - 3 * 3600)
}, 120_000)

afterAll(async () => {
  await h?.close()
})

async function swapsTotal(query = ''): Promise<number> {
  const end = Date.now() + 3_600_000
  const { status, body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${end}&limit=10${query}`)
  expect(status).toBe(200)
  return body.pagination.total
}

/** The token's traded USD volume as its stored candles say (the endpoint refreshes what it reads). */
async function candleVolume(token: string): Promise<number> {
  const { status, body } = await getJson(`${h.api.baseUrl}/tokens/${token}/candles?interval=1h&start_time=0&end_time=${Date.now()}`)
  expect(status).toBe(200)
  return body.result.reduce((sum: number, c: { volume: number }) => sum + c.volume, 0)
}

async function valueOf(hash: Hex): Promise<number> {
  return (await getJson(`${h.api.baseUrl}/swap-transactions/${hash}`)).body.result.value_usd
}

async function served(hash: Hex): Promise<number> {
  return (await getJson(`${h.api.baseUrl}/swap-transactions/${hash}`)).status
}

describe('follower through a reorg', () => {
  it('retracts the swaps of orphaned blocks from every endpoint and totals, and ingests the canonical blocks', async () => {
    const d = h.devnet.deployment
    const a = h.devnet.traders[0]!
    const b = h.devnet.traders[1]!
    const token = a.tokens[0]!
    const kept = await h.trade(0, 'v2-single', [d.weth, token], 1_000)
    const orphanV2 = await h.trade(0, 'v2-single', [token, d.weth], 500)
    const orphanV3 = await h.trade(0, 'v3-multi', [token, d.weth, d.stablecoins[0]!], 700)
    const { follower } = await h.startFollower()
    const head = Number(await h.devnet.client.getBlockNumber())
    await waitForCheckpoint(follower, head)
    expect(await swapsTotal()).toBe(3)
    expect(await swapsTotal(`&address=${a.address}`)).toBe(3)
    expect(await swapsTotal(`&token_id=${token.address}`)).toBe(3)
    const keptValue = await valueOf(kept)
    const allValue = keptValue + (await valueOf(orphanV2)) + (await valueOf(orphanV3))
    expect(await candleVolume(token.address)).toBeCloseTo(allValue, 1)

    // The newest two blocks (the two "orphan" trades) are replaced by one other trade.
    const replacement = tradeTx(d, b.address, 'v2-single', [d.weth, b.tokens[1]!], rawAmount(800, d.weth))
    const request = { from: replacement.from, to: replacement.to, data: replacement.data, gas: `0x${replacement.gas.toString(16)}` }
    await h.devnet.client.request({ method: 'anvil_reorg', params: [2, [[request, 1]]] } as never)
    const canonical = await h.devnet.client.getBlock({ blockNumber: BigInt(head), includeTransactions: false })
    const canonicalTx = canonical.transactions[0] as Hex
    expect(canonicalTx).toBeDefined()

    const deadline = Date.now() + 30_000
    while (follower.stats.reorgs < 1 || follower.checkpoint.hash !== canonical.hash) {
      if (Date.now() > deadline) throw new Error('the follower did not follow the reorg')
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(follower.stats.retracted).toBe(2)
    expect(await served(kept)).toBe(200)
    expect(await served(orphanV2)).toBe(404)
    expect(await served(orphanV3)).toBe(404)
    expect(await served(canonicalTx)).toBe(200)
    expect(await swapsTotal()).toBe(2)
    expect(await swapsTotal(`&address=${a.address}`)).toBe(1)
    expect(await swapsTotal(`&address=${b.address}`)).toBe(1)
    expect(await swapsTotal(`&token_id=${token.address}`)).toBe(1)
    expect(await swapsTotal(`&token_id=${d.stablecoins[0]!.address}`)).toBe(0)
    // The candles: only the kept swap's volume is left.
    expect(await candleVolume(token.address)).toBeCloseTo(keptValue, 1)
  }, 90_000)
})
