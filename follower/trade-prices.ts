import type { PricedToken } from './usd-prices.js'

/** A `price` record of shared/records/records.ts as the follower builds it (no volume: see TradePrices). */
export interface FollowedPriceRecord {
  contract_address: string
  timestamp: number
  price_usd: number
  volume_usd: null
}

/** The ms a block's price records may take after its time: block times are whole seconds. */
const SLOTS_PER_SECOND = 999

/**
 * Where a token's price records go within a second. Prices are keyed by (token, timestamp)
 * in storage and a block's time is whole seconds (several blocks may share one: an L2, or
 * anvil mining fast), so the n-th price of a token within a second is placed n ms after it
 * (1 to 999 ms; beyond that the last slot stands for the rest): every trade keeps its own
 * record, in chain order, after the swap records of its second. Kept for the follower's
 * life, across steps; a restart starts the count again (a price of the same second as the
 * last one before it may then replace that one).
 */
export class PriceSlots {
  private readonly last = new Map<string, { time: number; n: number }>()

  next(token: string, time: number): number {
    const seen = this.last.get(token)
    const n = seen !== undefined && seen.time === time ? Math.min(seen.n + 1, SLOTS_PER_SECOND) : 1
    this.last.set(token, { time, n })
    return time + n
  }
}

/**
 * Price records from trades: one per token per swap in a pool that prices it (against a
 * stablecoin or WETH, above the liquidity threshold), the pool's price just after the swap.
 * The records carry no volume: a candle's volume is the swaps' `value_usd`, counted once.
 */
export class TradePrices {
  private readonly observations: Array<{ blockHash: string; priced: PricedToken[] }> = []

  constructor(private readonly slots: PriceSlots) {}

  /** A swap moved a pool to these prices (in chain order). */
  add(blockHash: string, priced: readonly PricedToken[]): void {
    if (priced.length > 0) this.observations.push({ blockHash, priced: [...priced] })
  }

  /** The records by block hash, at each block's time (ms); a block without a known time gives none. */
  records(blockTimes: ReadonlyMap<string, number>): Map<string, FollowedPriceRecord[]> {
    const byBlock = new Map<string, FollowedPriceRecord[]>()
    for (const { blockHash, priced } of this.observations) {
      const time = blockTimes.get(blockHash)
      if (time === undefined) continue
      const list = byBlock.get(blockHash) ?? []
      for (const { token, price } of priced) {
        list.push({ contract_address: token, timestamp: this.slots.next(token, time), price_usd: price, volume_usd: null })
      }
      byBlock.set(blockHash, list)
    }
    return byBlock
  }
}
