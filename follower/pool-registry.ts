import { parseAbi, type Address } from 'viem'
import type { Logger } from '../shared/platform/logger.js'
import type { PoolCreation } from './chain-logs.js'
import { isTransient, type ChainRpc } from './chain-rpc.js'

export interface Pool {
  token0: string
  token1: string
  dex: 'uniswap-v2' | 'uniswap-v3'
}

const POOL_ABI = parseAbi(['function token0() view returns (address)', 'function token1() view returns (address)', 'function factory() view returns (address)'])

/**
 * The pools whose swaps count: created by a configured factory. Learned from the
 * factories' PairCreated/PoolCreated events as they are read and, for a pool created
 * before the follower's first block, on its first swap by asking the pool for its
 * factory and tokens (a pool claiming a factory it does not belong to would need that
 * factory's event too, so such an impostor is at worst priced, never a different pair).
 */
export class PoolRegistry {
  private readonly pools = new Map<string, Pool | null>()

  constructor(
    private readonly rpc: ChainRpc,
    private readonly factories: { v2: ReadonlySet<string>; v3: ReadonlySet<string> },
    private readonly logger: Logger,
  ) {}

  /** A creation event: registered if its factory is one of ours. */
  created(event: PoolCreation): void {
    const ours = event.dex === 'uniswap-v2' ? this.factories.v2 : this.factories.v3
    if (ours.has(event.factory)) this.pools.set(event.pool, { token0: event.token0, token1: event.token1, dex: event.dex })
  }

  get(address: string): Pool | undefined {
    return this.pools.get(address) ?? undefined
  }

  /** Looks up the pools not seen yet (one batch of calls); unknown or foreign pools are remembered as not ours. */
  async discover(addresses: Iterable<string>, dexOf: (address: string) => 'uniswap-v2' | 'uniswap-v3'): Promise<void> {
    const unknown = [...new Set(addresses)].filter((a) => !this.pools.has(a))
    if (unknown.length === 0) return
    const read = (address: string, functionName: 'token0' | 'token1' | 'factory') =>
      this.rpc.client.readContract({ address: address as Address, abi: POOL_ABI, functionName }).then(
        (v) => v.toLowerCase(),
        (err: unknown) => {
          // The node being away is not an answer: the caller retries the range.
          if (isTransient(err)) throw err
          return null
        },
      )
    await Promise.all(
      unknown.map(async (address) => {
        const [token0, token1, factory] = await Promise.all([read(address, 'token0'), read(address, 'token1'), read(address, 'factory')])
        const dex = dexOf(address)
        const ours = dex === 'uniswap-v2' ? this.factories.v2 : this.factories.v3
        if (token0 && token1 && factory && ours.has(factory)) {
          this.pools.set(address, { token0, token1, dex })
        } else {
          this.pools.set(address, null)
          this.logger.debug('swap from a pool of no followed factory: ignored', { pool: address, factory })
        }
      }),
    )
  }
}
