import type { Pool } from './pool-registry.js'

const Q96 = 2 ** 96

/** A token priced by a pool state: its USD price. */
export interface PricedToken {
  token: string
  price: number
}

/**
 * USD prices of tokens, learned from pool states as swaps move them: a stablecoin is worth
 * 1 USD; WETH is priced from its pools against a stablecoin; any other token from its
 * pools against a stablecoin or WETH. A pool holding less than `minLiquidityUsd` (both
 * sides) prices nothing, so a thin pool cannot set a token's price.
 */
export class UsdPrices {
  private readonly prices = new Map<string, number>()

  constructor(
    private readonly weth: string,
    private readonly stablecoins: ReadonlySet<string>,
    private readonly minLiquidityUsd: number,
    private readonly decimalsOf: (token: string) => number | undefined,
    saved: Record<string, number> = {},
  ) {
    for (const [token, price] of Object.entries(saved)) this.prices.set(token, price)
  }

  priceOf(token: string): number | undefined {
    return this.stablecoins.has(token) ? 1 : this.prices.get(token)
  }

  /** Which side of a swap values it: a stablecoin (0) before WETH (1) before any other token (2). */
  anchorRank(token: string): 0 | 1 | 2 {
    return this.stablecoins.has(token) ? 0 : token === this.weth ? 1 : 2
  }

  /** The learned prices, to persist with the checkpoint. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.prices)
  }

  /** A V2 pool's reserves (its Sync event): the tokens it priced. */
  observeReserves(pool: Pool, reserve0: bigint, reserve1: bigint): PricedToken[] {
    const d0 = this.decimalsOf(pool.token0)
    const d1 = this.decimalsOf(pool.token1)
    if (d0 === undefined || d1 === undefined) return []
    return this.observe(pool, Number(reserve0) / 10 ** d0, Number(reserve1) / 10 ** d1)
  }

  /** A V3 pool's state after a swap (its virtual reserves at the current price): the tokens it priced. */
  observeV3(pool: Pool, sqrtPriceX96: bigint, liquidity: bigint): PricedToken[] {
    const d0 = this.decimalsOf(pool.token0)
    const d1 = this.decimalsOf(pool.token1)
    if (d0 === undefined || d1 === undefined || sqrtPriceX96 === 0n) return []
    const sqrtP = Number(sqrtPriceX96) / Q96
    const L = Number(liquidity)
    return this.observe(pool, L / sqrtP / 10 ** d0, (L * sqrtP) / 10 ** d1)
  }

  private observe(pool: Pool, amount0: number, amount1: number): PricedToken[] {
    if (!(amount0 > 0 && amount1 > 0)) return []
    const priced: PricedToken[] = []
    for (const p of [this.priceFrom(pool.token0, amount0, pool.token1, amount1), this.priceFrom(pool.token1, amount1, pool.token0, amount0)]) {
      if (p) priced.push(p)
    }
    return priced
  }

  /** Prices `token` from an anchor on the other side of the pool (nothing if the pool is not a pricing pool). */
  private priceFrom(token: string, amount: number, anchor: string, anchorAmount: number): PricedToken | undefined {
    if (this.stablecoins.has(token)) return undefined
    const anchorIsStable = this.stablecoins.has(anchor)
    if (!anchorIsStable && (anchor !== this.weth || token === this.weth)) return undefined
    const anchorPrice = anchorIsStable ? 1 : this.prices.get(this.weth)
    if (anchorPrice === undefined) return undefined
    const sideUsd = anchorAmount * anchorPrice
    if (sideUsd * 2 < this.minLiquidityUsd) return undefined
    const price = sideUsd / amount
    if (!(Number.isFinite(price) && price > 0)) return undefined
    this.prices.set(token, price)
    return { token, price }
  }
}
