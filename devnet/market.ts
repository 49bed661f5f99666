/**
 * The devnet's market, fixed: WETH, three stablecoins and a few dozen test tokens with a
 * starting USD price each, and which pools (V2, V3) hold which pair.
 */
export interface TokenSpec {
  name: string
  symbol: string
  decimals: number
  /** Starting price in USD, which the pools' liquidity ratios encode. */
  priceUsd: number
}

export const WETH_PRICE_USD = 3_000

export const STABLECOINS: TokenSpec[] = [
  { name: 'USD Coin', symbol: 'USDC', decimals: 6, priceUsd: 1 },
  { name: 'Tether USD', symbol: 'USDT', decimals: 6, priceUsd: 1 },
  { name: 'Dai Stablecoin', symbol: 'DAI', decimals: 18, priceUsd: 1 },
]

const NAMES = [
  'Aurora', 'Basalt', 'Cobalt', 'Drift', 'Ember', 'Fjord', 'Garnet', 'Harbor', 'Iris', 'Juniper',
  'Krypton', 'Lumen', 'Meadow', 'Nimbus', 'Onyx', 'Prism', 'Quartz', 'Ripple', 'Sable', 'Tundra',
  'Umber', 'Vortex', 'Willow', 'Xenon',
]

/** `count` test tokens (at most 24), prices spread from $0.01 to $500 (deterministic). */
export function testTokens(count: number): TokenSpec[] {
  return NAMES.slice(0, count).map((name, i) => ({
    name: `${name} Token`,
    symbol: name.slice(0, 4).toUpperCase(),
    decimals: i % 5 === 4 ? 8 : 18,
    priceUsd: Number((0.01 * Math.pow(50_000, i / Math.max(1, count - 1))).toPrecision(4)),
  }))
}

/** USD depth of each side of a pool. */
export const POOL_SIDE_USD = 2_000_000

/**
 * USD depth of each side of the pools between WETH and the stablecoins and between
 * stablecoins: deep, like a real market's, so that the wallets paying in one stablecoin
 * and selling for another (devnet/traders.ts) do not drift the stablecoins' WETH prices
 * apart round after round.
 */
export const STABLE_POOL_SIDE_USD = 100_000_000

/** Raw units of `usd` worth of a token (integer). */
export function rawAmount(usd: number, token: TokenSpec | { decimals: number; priceUsd: number }): bigint {
  // Micro-units of the token in floating point first, then scaled exactly: no 2^53 overflow.
  const micro = BigInt(Math.round((usd / token.priceUsd) * 1e6))
  const scale = 10n ** BigInt(token.decimals)
  return (micro * scale) / 1_000_000n
}

/** Integer square root (Newton). */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  let x = n
  let y = (x + 1n) / 2n
  while (y < x) {
    x = y
    y = (x + n / x) / 2n
  }
  return x
}

/** A V3 pool's starting sqrt price (Q64.96) for raw reserves amount0 : amount1. */
export function sqrtPriceX96(amount0: bigint, amount1: bigint): bigint {
  return isqrt((amount1 << 192n) / amount0)
}
