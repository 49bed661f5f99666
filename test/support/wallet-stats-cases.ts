import { expect } from 'vitest'
import type { StatSwap, WalletStats, WindowStats } from '../../shared/smart-money/wallet-stats.js'
import { STAT_WINDOWS } from '../../shared/platform/smart-money-settings.js'
import { seededFloats as prng } from '../../ingest/sample-data/prng.js'
import { addressFor, hashFor, type SwapRowInput } from './factories.js'

export const DAY = 86_400_000
export const HOUR = 3_600_000

/** Random swaps of a few wallets and tokens: amounts beyond 64 bits and zero now and then, some without USD. */
export class RandomSwaps {
  readonly wallets: string[]
  readonly tokens: string[]
  private next = 0

  constructor(
    private readonly seed: number,
    private readonly rnd = prng(seed),
  ) {
    this.wallets = Array.from({ length: 6 }, (_, i) => addressFor(`prop-${seed}-wallet-${i}`))
    this.tokens = Array.from({ length: 4 }, (_, i) => addressFor(`prop-${seed}-token-${i}`))
  }

  random(): number {
    return this.rnd()
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!
  }

  /** 0 now and then; otherwise up to 10^30 (beyond 64 bits), so the quantities need UInt256. */
  amount(): bigint {
    return this.rnd() < 0.03 ? 0n : BigInt(Math.floor(this.rnd() * 1e6) + 1) * 10n ** BigInt(Math.floor(this.rnd() * 25))
  }

  swap(timestamp: number, ingestedAt: number, wallet = this.pick(this.wallets)): SwapRowInput {
    const sold = this.pick(this.tokens)
    const bought = this.pick(this.tokens.filter((t) => t !== sold))
    return {
      hash: hashFor(`prop-${this.seed}-${this.next++}`),
      timestamp,
      wallet_address: wallet,
      token_sold_address: sold,
      token_sold_amount: this.amount().toString(),
      token_bought_address: bought,
      token_bought_amount: this.amount().toString(),
      value_usd: this.rnd() < 0.1 ? null : Math.round(this.rnd() * 1e8) / 100,
      ingested_at: ingestedAt,
    }
  }
}

/** A delivered row as the statistics see it (chain 1). */
export function statSwapOf(r: SwapRowInput): StatSwap {
  return {
    wallet: r.wallet_address!,
    timestampMs: r.timestamp,
    hash: r.hash,
    chainId: 1,
    soldToken: r.token_sold_address!,
    soldAmount: BigInt(r.token_sold_amount!),
    boughtToken: r.token_bought_address!,
    boughtAmount: BigInt(r.token_bought_amount!),
    valueUsd: r.value_usd ?? null,
  }
}

const COUNTS = ['trades', 'tradesWithoutUsd', 'positionsReduced', 'positionsWon', 'tokensTraded', 'firstTradeMs', 'lastTradeMs'] as const
const SUMS = ['volumeUsd', 'matchedProceedsUsd', 'unmatchedProceedsUsd', 'closedCostUsd', 'realizedPnlUsd', 'roi', 'winRate'] as const

/** Float sums may be added in another order by ClickHouse: equal within 1e-9 relative (1e-6 absolute). */
function expectClose(got: number | null, want: number | null, what: string): void {
  if (want === null || got === null) {
    expect(got, what).toBe(want)
    return
  }
  expect(Math.abs(got - want), `${what}: ${got} vs ${want}`).toBeLessThanOrEqual(Math.max(1e-6, Math.abs(want) * 1e-9))
}

/** Counts and times equal, USD figures within 1e-9 relative. */
export function expectSameStats(got: WalletStats, want: WalletStats, what: string): void {
  for (const w of STAT_WINDOWS) {
    const g: WindowStats = got.windows[w]
    const r: WindowStats = want.windows[w]
    for (const k of COUNTS) expect(g[k], `${what} ${got.wallet} ${w} ${k}`).toBe(r[k])
    for (const k of SUMS) expectClose(g[k], r[k], `${what} ${got.wallet} ${w} ${k}`)
  }
  expect(got.openPositions, `${what} ${got.wallet} open positions`).toBe(want.openPositions)
  expectClose(got.unrealizedPnlUsd, want.unrealizedPnlUsd, `${what} ${got.wallet} unrealized`)
}

/** Every wallet, in order, the same statistics. */
export function expectSameWallets(got: readonly WalletStats[], want: readonly WalletStats[], what: string): void {
  expect(got.map((s) => s.wallet), what).toEqual(want.map((s) => s.wallet))
  want.forEach((r, i) => expectSameStats(got[i]!, r, what))
}
