import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { rpcBatch } from '../devnet/chain-client.js'
import { prng, tradeRound } from '../devnet/traders.js'
import type { FollowerState } from '../follower/follower-state.js'
import { createRedis, redisKey } from '../shared/platform/redis.js'
import { getJson } from './support/http.js'
import { startFollowerHarness, type FollowerHarness } from './support/follower-harness.js'

/**
 * A follower killed between writing a step as pending and sending its jobs: on restart the
 * step's jobs are not in the queue. They must be sent, not taken as done (the checkpoint
 * would then pass blocks whose swaps were never stored).
 */
let h: FollowerHarness
const expected = new Set<string>()

beforeAll(async () => {
  h = await startFollowerHarness({ FINALITY_DEPTH: '3' }, 6)
  const random = prng(11)
  for (let round = 0; round < 6; round++) {
    const hashes = await tradeRound(h.devnet.url, h.devnet.deployment, h.devnet.traders, round, random, 1)
    await h.devnet.client.mine({ blocks: 1 })
    const receipts = await rpcBatch<{ status: Hex }>(h.devnet.url, hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })))
    receipts.forEach((r, i) => {
      if (r.status === '0x1') expected.add(hashes[i]!.toLowerCase())
    })
  }
  await h.devnet.client.mine({ blocks: 5 }) // every trade final
}, 180_000)

afterAll(async () => {
  await h?.close()
})

async function served(): Promise<string[]> {
  const { body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}&limit=500`)
  return body.result.map((s: { hash: string }) => s.hash)
}

describe('a step left pending by a follower that died before sending it', () => {
  it('is sent on restart: every swap of its blocks is served once', async () => {
    expect(expected.size).toBeGreaterThan(5)
    const head = Number(await h.devnet.client.getBlockNumber())
    const [block] = await Promise.all([h.devnet.client.getBlock({ blockNumber: BigInt(head - 3) })])
    const start = h.devnet.deployment.startBlock
    // The state a run leaves when it dies right after writing the history step [start, head - 3].
    const state: FollowerState = {
      checkpoint: { number: start - 1, hash: null },
      window: [],
      prices: {},
      pending: {
        jobIds: [`follow-31337-swap-${start}-${head - 3}`],
        next: { checkpoint: { number: head - 3, hash: block.hash! }, window: [], prices: {} },
      },
    }
    const redis = createRedis(h.runtime.config.redis.url)
    try {
      await redis.set(redisKey(h.runtime.config.redis.prefix, 'follower', '31337', 'state'), JSON.stringify(state))
    } finally {
      redis.disconnect()
    }
    const { follower, stop } = await h.startFollower({ FINALITY_DEPTH: '3' })
    const deadline = Date.now() + 60_000
    while (follower.checkpoint.number < head - 3) {
      if (Date.now() > deadline) throw new Error('the follower did not reach the finalized head')
      await new Promise((r) => setTimeout(r, 25))
    }
    await stop()
    const hashes = await served()
    expect(new Set(hashes).size).toBe(hashes.length)
    expect(new Set(hashes)).toEqual(expected)
  }, 120_000)
})
