import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { getJson } from './support/http.js'
import { freePort, startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'

/**
 * The node going away and coming back: the follower reads anvil through a proxy that is
 * closed (connections refused) while trades are mined, then opened again on the same port.
 */
let h: FollowerHarness
let proxy: Server | undefined
let port: number

function openProxy(target: string): Promise<void> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' })
          res.end(Buffer.from(await r.arrayBuffer()))
        })
        .catch(() => res.destroy())
    })
  })
  return new Promise((resolve) => proxy!.listen(port, '127.0.0.1', () => resolve()))
}

function closeProxy(): Promise<void> {
  return new Promise((resolve) => {
    proxy!.closeAllConnections()
    proxy!.close(() => resolve())
  })
}

beforeAll(async () => {
  port = await freePort()
  h = await startFollowerHarness({ FINALITY_DEPTH: '3' })
  await openProxy(h.devnet.url)
}, 120_000)

afterAll(async () => {
  await h?.close()
  if (proxy?.listening) await closeProxy()
})

describe('follower while the node is unreachable', () => {
  it('waits with backoff and catches up once the node answers again', async () => {
    const d = h.devnet.deployment
    const token = h.devnet.traders[0]!.tokens[0]!
    const before = await h.trade(0, 'v2-single', [d.weth, token], 1_000)
    const { follower } = await h.startFollower({ RPC_URL: `http://127.0.0.1:${port}` })
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()))

    await closeProxy()
    const during: Hex[] = []
    for (let i = 0; i < 3; i++) during.push(await h.trade(0, 'v3-single', [d.weth, token], 300 + i))
    await new Promise((r) => setTimeout(r, 1_500))
    const stuckAt = follower.checkpoint.number
    expect(stuckAt).toBeLessThan(Number(await h.devnet.client.getBlockNumber()))

    await openProxy(h.devnet.url)
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()), 30_000)
    for (const hash of [before, ...during]) {
      expect((await getJson(`${h.api.baseUrl}/swap-transactions/${hash}`)).status).toBe(200)
    }
    const { body } = await getJson(`${h.api.baseUrl}/swap-transactions?start_time=0&end_time=${Date.now() + 3_600_000}`)
    expect(body.pagination.total).toBe(4)
  }, 90_000)
})
