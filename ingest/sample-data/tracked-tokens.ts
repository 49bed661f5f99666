/**
 * The tokens the sample trades, by symbol in the Uniswap default token list (chainId 1),
 * with a plausible starting price in USD and an hourly volatility of the random walk.
 * Stablecoins stay pegged near 1 instead of walking.
 */
export interface TrackedToken {
  symbol: string
  startPrice: number
  hourlyVolatility: number
  stable?: boolean
}

export const trackedTokens: readonly TrackedToken[] = [
  { symbol: 'WETH', startPrice: 3_000, hourlyVolatility: 0.008 },
  { symbol: 'USDC', startPrice: 1, hourlyVolatility: 0.0004, stable: true },
  { symbol: 'USDT', startPrice: 1, hourlyVolatility: 0.0004, stable: true },
  { symbol: 'DAI', startPrice: 1, hourlyVolatility: 0.0005, stable: true },
  { symbol: 'WBTC', startPrice: 60_000, hourlyVolatility: 0.006 },
  { symbol: 'UNI', startPrice: 8, hourlyVolatility: 0.012 },
  { symbol: 'LINK', startPrice: 15, hourlyVolatility: 0.012 },
  { symbol: 'AAVE', startPrice: 150, hourlyVolatility: 0.012 },
  { symbol: 'MKR', startPrice: 1_500, hourlyVolatility: 0.011 },
  { symbol: 'COMP', startPrice: 50, hourlyVolatility: 0.013 },
  { symbol: 'CRV', startPrice: 0.5, hourlyVolatility: 0.016 },
  { symbol: 'SNX', startPrice: 2, hourlyVolatility: 0.015 },
  { symbol: 'LDO', startPrice: 1.8, hourlyVolatility: 0.015 },
  { symbol: 'MATIC', startPrice: 0.5, hourlyVolatility: 0.013 },
  { symbol: 'SHIB', startPrice: 0.00002, hourlyVolatility: 0.018 },
  { symbol: 'PEPE', startPrice: 0.00001, hourlyVolatility: 0.022 },
  { symbol: '1INCH', startPrice: 0.4, hourlyVolatility: 0.015 },
  { symbol: 'SUSHI', startPrice: 1, hourlyVolatility: 0.016 },
  { symbol: 'ENS', startPrice: 20, hourlyVolatility: 0.014 },
  { symbol: 'GRT', startPrice: 0.2, hourlyVolatility: 0.015 },
]
