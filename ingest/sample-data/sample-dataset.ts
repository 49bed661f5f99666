import type { RecordInput } from '../../shared/records/records.js'
import { Prng } from './prng.js'
import { mainnetTokenList, tokenRecordsFromList } from './token-list.js'
import { trackedTokens } from './tracked-tokens.js'

export interface SampleDataset {
  tokens: RecordInput<'token'>[]
  prices: RecordInput<'price'>[]
  swaps: RecordInput<'swap'>[]
  holdings: RecordInput<'holding'>[]
  /** The tracked wallets, in a fixed order. */
  wallets: string[]
  /** The first and last hour of the price grid (ms since the epoch). */
  startTime: number
  endTime: number
}

export interface SampleOptions {
  seed?: number
  /** The grid ends at the start of this hour (default: now); every time is relative to it. */
  endTime?: number
  days?: number
  wallets?: number
}

export const DEFAULT_SAMPLE_SEED = 20_250_206
const HOUR = 3_600_000
const DEXES = ['uniswap_v3', 'uniswap_v2', 'sushiswap', 'curve', 'balancer'] as const
/** Block timing anchor: Ethereum block 21,525,000 was mined around 2025-01-01T00:00Z, one block per 12 s. */
const ANCHOR_BLOCK = 21_525_000
const ANCHOR_TIME = Date.UTC(2025, 0, 1)

interface TradedToken {
  address: string
  decimals: number
  /** Price at each hour of the grid. */
  prices: number[]
}

/**
 * The bundled sample: real mainnet token metadata, and seeded swaps, holdings and hourly
 * price observations of the tracked tokens. Every random choice comes from a fixed seed
 * and every time is an offset on an hourly grid ending at `endTime`, so the same seed gives
 * the same hashes, wallets, prices and amounts whenever it is built; only the times move.
 */
export function buildSampleDataset(options: SampleOptions = {}): SampleDataset {
  const seed = options.seed ?? DEFAULT_SAMPLE_SEED
  const days = options.days ?? 62
  const endTime = Math.floor((options.endTime ?? Date.now()) / HOUR) * HOUR
  const hours = days * 24
  const startTime = endTime - hours * HOUR

  const list = mainnetTokenList()
  const tokens = tokenRecordsFromList(list)
  const traded = trackedTokens.map((tracked, index): TradedToken => {
    const entry = list.find((t) => t.symbol === tracked.symbol)
    if (!entry) throw new Error(`sample token ${tracked.symbol} is not in @uniswap/default-token-list`)
    const walk = new Prng(seed + 1_000 + index)
    return { address: entry.address.toLowerCase(), decimals: entry.decimals, prices: priceWalk(walk, tracked, hours + 1) }
  })

  const walletRng = new Prng(seed + 1)
  const wallets = Array.from({ length: options.wallets ?? 40 }, () => `0x${walletRng.hex(40)}`)

  const prices: RecordInput<'price'>[] = []
  const volumeRng = new Prng(seed + 2)
  for (const token of traded) {
    token.prices.forEach((price, hour) => {
      prices.push({
        contract_address: token.address,
        timestamp: startTime + hour * HOUR,
        price_usd: price,
        volume_usd: cents(250_000 * Math.exp(1.2 * volumeRng.gaussian())),
      })
    })
  }

  const swapRng = new Prng(seed + 3)
  const swaps: RecordInput<'swap'>[] = []
  for (let hour = 0; hour < hours; hour++) {
    const count = swapRng.int(5, 15)
    for (let i = 0; i < count; i++) {
      const timestamp = startTime + hour * HOUR + swapRng.int(0, HOUR - 1)
      const sold = swapRng.pick(traded)
      let bought = swapRng.pick(traded)
      while (bought === sold) bought = swapRng.pick(traded)
      const valueUsd = cents(100 * Math.exp(swapRng.next() * Math.log(2_500)))
      swaps.push({
        hash: `0x${swapRng.hex(64)}`,
        block_number: blockAt(timestamp),
        timestamp,
        wallet_address: swapRng.pick(wallets),
        token_sold: { contract_address: sold.address, amount_raw: rawAmount(valueUsd, sold.prices[hour]!, sold.decimals) },
        token_bought: {
          contract_address: bought.address,
          // The pool keeps a 0.3% fee.
          amount_raw: rawAmount(valueUsd * 0.997, bought.prices[hour]!, bought.decimals),
        },
        value_usd: valueUsd,
        dex: swapRng.pick(DEXES),
        chain_id: 1,
      })
    }
  }

  const holdingRng = new Prng(seed + 4)
  const holdings: RecordInput<'holding'>[] = []
  for (const wallet of wallets) {
    const held = new Set<TradedToken>()
    const count = holdingRng.int(3, 8)
    while (held.size < count) held.add(holdingRng.pick(traded))
    for (const token of held) {
      const valueUsd = cents(1_000 * Math.exp(holdingRng.next() * Math.log(2_000)))
      holdings.push({
        wallet_address: wallet,
        contract_address: token.address,
        balance_raw: rawAmount(valueUsd, token.prices[hours]!, token.decimals),
        value_usd: valueUsd,
        as_of: endTime,
      })
    }
  }

  return { tokens, prices, swaps, holdings, wallets, startTime, endTime }
}

/** Hourly prices: a geometric random walk, or for a stablecoin a peg with mean-reverting noise. */
function priceWalk(rng: Prng, token: (typeof trackedTokens)[number], points: number): number[] {
  const prices: number[] = []
  let logDeviation = 0
  for (let i = 0; i < points; i++) {
    const shock = token.hourlyVolatility * rng.gaussian()
    logDeviation = token.stable ? 0.8 * logDeviation + shock : logDeviation + shock
    prices.push(Number((token.startPrice * Math.exp(logDeviation)).toPrecision(10)))
  }
  return prices
}

/** value / price in token units, as an exact integer string of raw units. */
export function rawAmount(valueUsd: number, priceUsd: number, decimals: number): string {
  const units = valueUsd / priceUsd
  // About 12 significant digits of the double; the rest are zeros, so no float noise is written.
  const magnitude = Math.max(0, Math.ceil(Math.log10(units)))
  const precise = Math.max(0, Math.min(decimals, 12 - magnitude))
  const scaled = BigInt(Math.round(units * 10 ** precise))
  return (scaled * 10n ** BigInt(decimals - precise)).toString()
}

function blockAt(timestamp: number): number {
  return ANCHOR_BLOCK + Math.floor((timestamp - ANCHOR_TIME) / 12_000)
}

function cents(value: number): number {
  return Math.round(value * 100) / 100
}
