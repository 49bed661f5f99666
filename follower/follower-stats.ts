import { redisKey, type Redis } from '../shared/platform/redis.js'

/** Counters of what the follower did, and why transactions were not swaps (kept in Redis by reason). */
export class FollowerStats {
  blocks = 0
  swapLogs = 0
  swaps = 0
  tokens = 0
  reorgs = 0
  retracted = 0
  unnetted = 0
  /** Price records sent (trades of blocks that became final). */
  prices = 0
  /** Holding records sent (balances read at the finalized block). */
  holdings = 0
  private readonly reasonsKey: string
  private readonly examplesKey: string

  constructor(
    private readonly redis: Redis,
    prefix: string,
    chainId: number,
  ) {
    this.reasonsKey = redisKey(prefix, 'follower', String(chainId), 'unnetted')
    this.examplesKey = redisKey(prefix, 'follower', String(chainId), 'unnetted-examples')
  }

  /** Transactions that are not one swap: counted by reason, the last 1,000 kept with their hash. */
  async recordUnnetted(items: ReadonlyArray<{ hash: string; reason: string }>): Promise<void> {
    if (items.length === 0) return
    this.unnetted += items.length
    const multi = this.redis.multi()
    for (const item of items) {
      multi.hincrby(this.reasonsKey, item.reason, 1)
      multi.lpush(this.examplesKey, JSON.stringify(item))
    }
    multi.ltrim(this.examplesKey, 0, 999)
    await multi.exec()
  }

  async unnettedReasons(): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.reasonsKey)
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]))
  }

  snapshot() {
    const { blocks, swapLogs, swaps, tokens, reorgs, retracted, unnetted, prices, holdings } = this
    return { blocks, swapLogs, swaps, tokens, reorgs, retracted, unnetted, prices, holdings }
  }
}
