import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type AnvilChain } from '../devnet/anvil-process.js'
import { AdaptiveLogReader } from '../follower/adaptive-log-reader.js'
import { ChainRpc } from '../follower/chain-rpc.js'
import { freePort } from './support/private-redis.js'
import { recordingLogger } from './support/recording-logger.js'
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy.js'

/**
 * eth_getLogs ranges against a provider that refuses ranges wider than 5 blocks, as
 * providers do ("query returned more than 10000 results"): the reader halves down to a size
 * the provider takes and then stays under it instead of doubling back into refusals; the
 * pieces cover the range without a gap or an overlap.
 */
const WIDEST = 5
let anvil: AnvilChain
let proxy: RpcProxy

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort() })
  await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x80'] }) })
  proxy = await startRpcProxy(anvil.url, {
    failWith: (call) => {
      if (call.method !== 'eth_getLogs') return undefined
      const { fromBlock, toBlock } = call.params![0] as { fromBlock: string; toBlock: string }
      return Number(toBlock) - Number(fromBlock) + 1 > WIDEST ? { code: -32005, message: 'query returned more than 10000 results' } : undefined
    },
  })
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  await anvil?.stop()
})

describe('adaptive eth_getLogs ranges', () => {
  it('settles under the widest range the provider takes, covering every block once', async () => {
    const reader = new AdaptiveLogReader(new ChainRpc(proxy.url, recordingLogger()), 64, recordingLogger())
    const pieces: Array<[number, number]> = []
    for (let from = 1; from <= 120; ) {
      const { to } = await reader.read(from, 120)
      pieces.push([from, to])
      from = to + 1
    }
    expect(pieces[0]![0]).toBe(1)
    expect(pieces[pieces.length - 1]![1]).toBe(120)
    for (let i = 1; i < pieces.length; i++) expect(pieces[i]![0]).toBe(pieces[i - 1]![1] + 1)
    for (const [from, to] of pieces) expect(to - from + 1).toBeLessThanOrEqual(WIDEST)
    // 64 → 32 → 16 → 8 → 4: four refusals, then none (without the ceiling: one every other read).
    const refused = proxy.calls.filter((c) => {
      const { fromBlock, toBlock } = c.params![0] as { fromBlock: string; toBlock: string }
      return c.method === 'eth_getLogs' && Number(toBlock) - Number(fromBlock) + 1 > WIDEST
    })
    expect(refused).toHaveLength(4)
  }, 60_000)
})
