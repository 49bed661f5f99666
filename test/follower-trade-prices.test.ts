import { describe, expect, it } from 'vitest'
import { PriceSlots, TradePrices } from '../follower/trade-prices.js'
import { UsdPrices } from '../follower/usd-prices.js'
import type { Pool } from '../follower/pool-registry.js'

/** Which pool states price which token (the price records' source), and where the records fall in time. */
const WETH = '0x00000000000000000000000000000000000000e1'
const USDC = '0x00000000000000000000000000000000000000c1'
const TKN = '0x00000000000000000000000000000000000000a1'
const OTHER = '0x00000000000000000000000000000000000000b1'
const decimals: Record<string, number> = { [WETH]: 18, [USDC]: 6, [TKN]: 18, [OTHER]: 18 }
const pool = (token0: string, token1: string): Pool => ({ token0, token1, dex: 'uniswap-v2' })
const e18 = (n: number) => BigInt(Math.round(n * 1e6)) * 10n ** 12n
const e6 = (n: number) => BigInt(Math.round(n * 1e6))

function prices(minLiquidityUsd = 10_000) {
  return new UsdPrices(WETH, new Set([USDC]), minLiquidityUsd, (t) => decimals[t])
}

describe('trade prices', () => {
  it('prices WETH from its stablecoin pools only, other tokens against WETH or a stablecoin, never a stablecoin', () => {
    const p = prices()
    // Token against WETH before WETH has a price: nothing.
    expect(p.observeReserves(pool(TKN, WETH), e18(1_000_000), e18(100))).toEqual([])
    expect(p.observeReserves(pool(USDC, WETH), e6(3_000_000), e18(1_000))).toEqual([{ token: WETH, price: 3_000 }])
    expect(p.observeReserves(pool(TKN, WETH), e18(1_000_000), e18(100))).toEqual([{ token: TKN, price: 0.3 }])
    // A pool of two tokens that are not anchors prices neither.
    expect(p.observeReserves(pool(TKN, OTHER), e18(1_000), e18(1_000))).toEqual([])
  })

  it('ignores pools under the liquidity threshold (both sides in USD)', () => {
    const p = prices(10_000)
    expect(p.observeReserves(pool(USDC, WETH), e6(4_999), e18(4_999 / 3_000))).toEqual([])
    expect(p.priceOf(WETH)).toBeUndefined()
    expect(p.observeReserves(pool(USDC, WETH), e6(5_000), e18(5_000 / 3_000))).toHaveLength(1)
  })

  it("places a token's n-th price within a second n ms after it, across steps, in chain order; no volume", () => {
    const slots = new PriceSlots()
    const step1 = new TradePrices(slots)
    step1.add('0xb1', [{ token: TKN, price: 1 }, { token: WETH, price: 3_000 }])
    step1.add('0xb1', [{ token: TKN, price: 2 }])
    const t = 1_700_000_000_000
    expect(step1.records(new Map([['0xb1', t]])).get('0xb1')).toEqual([
      { contract_address: TKN, timestamp: t + 1, price_usd: 1, volume_usd: null },
      { contract_address: WETH, timestamp: t + 1, price_usd: 3_000, volume_usd: null },
      { contract_address: TKN, timestamp: t + 2, price_usd: 2, volume_usd: null },
    ])
    // The next step's block of the same second (anvil, an L2) continues the count; a new second restarts it.
    const step2 = new TradePrices(slots)
    step2.add('0xb2', [{ token: TKN, price: 3 }])
    step2.add('0xb3', [{ token: TKN, price: 4 }])
    step2.add('0xb4', [{ token: TKN, price: 5 }])
    const records = step2.records(new Map([['0xb2', t], ['0xb3', t + 1_000]]))
    expect(records.get('0xb2')!.map((r) => r.timestamp)).toEqual([t + 3])
    expect(records.get('0xb3')!.map((r) => r.timestamp)).toEqual([t + 1_001])
    // A block whose time is unknown (reorganized while reading) gives none.
    expect(records.has('0xb4')).toBe(false)
  })
})
