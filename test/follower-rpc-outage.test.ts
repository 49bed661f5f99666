import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { getJson } from './support/http.js'
import { startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy.js'

/**
 * The node going away and coming back: the follower reads anvil through a proxy that is
 * closed (connections refused) while trades are mined, then opened again on the same port.
 */
let h: FollowerHarness
let proxy: RpcProxy

beforeAll(async () => {
  h = await startFollowerHarness({ FINALITY_DEPTH: '3' })
  proxy = await startRpcProxy(h.devnet.url)
}, 120_000)

afterAll(async () => {
  await h?.close()
  await proxy?.close()
})

describe('follower while the node is unreachable', () => {
  it('waits with backoff and catches up once the node answers again', async () => {
    const d = h.devnet.deployment
    const token = h.devnet.traders[0]!.tokens[0]!
    const before = await h.trade(0, 'v2-single', [d.weth, token], 1_000)
    const { follower } = await h.startFollower({ RPC_URL: proxy.url })
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()))

    await proxy.close()
    const during: Hex[] = []
    for (let i = 0; i < 3; i++) during.push(await h.trade(0, 'v3-single', [d.weth, token], 300 + i))
    await new Promise((r) => setTimeout(r, 1_500))
    const stuckAt = follower.checkpoint.number
    expect(stuckAt).toBeLessThan(Number(await h.devnet.client.getBlockNumber()))

    await proxy.open()
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()), 30_000)
    for (const hash of [before, ...during]) {
      expect((await getJson(`${h.api.baseUrl}/swap-transactions/${hash}`)).status).toBe(200)
    }
    const { body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}`)
    expect(body.pagination.total).toBe(4)
  }, 90_000)
})
