import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { rpcBatch } from '../devnet/chain-client.js'
import { prng, tradeRound } from '../devnet/traders.js'
import { createRedis, redisKey } from '../shared/platform/redis.js'
import type { FollowerState } from '../follower/follower-state.js'
import { getJson } from './support/http.js'
import { startFollowerHarness, type FollowerHarness } from './support/follower-harness.js'

/**
 * SIGKILL of the follower (`npm run follow`, its own process) in the middle of a history
 * run, then a restart: every swap of the chain is served exactly once, none lost, none doubled.
 */
let h: FollowerHarness
const expected = new Set<string>()
const children: ChildProcess[] = []

beforeAll(async () => {
  h = await startFollowerHarness({ FINALITY_DEPTH: '3', FOLLOW_MAX_LOG_RANGE: '1' }, 10)
  const random = prng(7)
  for (let round = 0; round < 24; round++) {
    const hashes = await tradeRound(h.devnet.url, h.devnet.deployment, h.devnet.traders, round, random, 1)
    await h.devnet.client.mine({ blocks: 1 })
    const receipts = await rpcBatch<{ status: Hex }>(h.devnet.url, hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })))
    receipts.forEach((r, i) => {
      if (r.status === '0x1') expected.add(hashes[i]!.toLowerCase())
    })
  }
}, 180_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  await h?.close()
})

function startFollowerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'follower/main.ts'], {
    env: { ...process.env, ...h.runtime.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  children.push(child)
  return child
}

async function checkpointOf(redis: ReturnType<typeof createRedis>): Promise<number> {
  const raw = await redis.get(redisKey(h.runtime.config.redis.prefix, 'follower', '31337', 'state'))
  return raw === null ? -1 : (JSON.parse(raw) as FollowerState).checkpoint.number
}

async function allServed(): Promise<string[]> {
  const hashes: string[] = []
  for (let offset = 0; ; offset += 500) {
    const { body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}&limit=500&offset=${offset}`)
    hashes.push(...body.result.map((s: { hash: string }) => s.hash))
    if (offset + 500 >= body.pagination.total) return hashes
  }
}

describe('follower killed mid-history', () => {
  it('resumes from its checkpoint without losing or doubling a swap', async () => {
    expect(expected.size).toBeGreaterThan(100)
    const head = Number(await h.devnet.client.getBlockNumber())
    const start = h.devnet.deployment.startBlock
    const redis = createRedis(h.runtime.config.redis.url)
    try {
      const first = startFollowerProcess()
      // Killed once it is well into the trading blocks, before it reaches the head.
      const killAt = head - 12
      const deadline = Date.now() + 60_000
      while ((await checkpointOf(redis)) < killAt) {
        if (Date.now() > deadline) throw new Error('the follower made no progress')
        await new Promise((r) => setTimeout(r, 5))
      }
      first.kill('SIGKILL')
      await new Promise((r) => first.once('exit', r))
      const killedAt = await checkpointOf(redis)
      expect(killedAt).toBeGreaterThan(start)
      expect(killedAt).toBeLessThan(head)

      const second = startFollowerProcess()
      const until = Date.now() + 60_000
      while ((await checkpointOf(redis)) < head) {
        if (Date.now() > until) throw new Error('the restarted follower did not reach the head')
        await new Promise((r) => setTimeout(r, 25))
      }
      second.kill('SIGTERM')
      await new Promise((r) => second.once('exit', r))
    } finally {
      redis.disconnect()
    }
    const served = await allServed()
    expect(new Set(served).size).toBe(served.length)
    expect(served.length).toBe(expected.size)
    expect(new Set(served)).toEqual(expected)
  }, 150_000)
})
