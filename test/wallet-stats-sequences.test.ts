import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeWalletStats } from '../shared/smart-money/compute-wallet-stats.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import type { StatSwap, WalletStats } from '../shared/smart-money/wallet-stats.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { statSwapOf } from './support/wallet-stats-cases.js'

const DAY = 86_400_000
const AS_OF = Date.UTC(2026, 5, 30, 12, 0, 0)
const E18 = 10n ** 18n
const usdc = addressFor('usdc')
const tok = addressFor('tok')
const other = addressFor('other-token')

/** `n` whole TOK (18 decimals) as raw text. */
const units = (n: number | bigint) => (BigInt(n) * E18).toString()
const dollars = (n: number) => String(BigInt(Math.round(n * 1e6))) // USDC raw, 6 decimals

let seq = 0
/** The wallet pays `usd` USDC for `n` TOK (or another token). */
function buy(wallet: string, n: number, usd: number | null, at: number, token = tok): SwapRowInput {
  return {
    hash: hashFor(`seq-${seq++}`),
    timestamp: at,
    wallet_address: wallet,
    token_sold_address: usdc,
    token_sold_amount: dollars(usd ?? 0),
    token_bought_address: token,
    token_bought_amount: units(n),
    value_usd: usd,
  }
}
function sell(wallet: string, n: number, usd: number | null, at: number, token = tok): SwapRowInput {
  return {
    hash: hashFor(`seq-${seq++}`),
    timestamp: at,
    wallet_address: wallet,
    token_sold_address: token,
    token_sold_amount: units(n),
    token_bought_address: usdc,
    token_bought_amount: dollars(usd ?? 0),
    value_usd: usd,
  }
}

/**
 * Hand-made sequences whose results are worked out here, one wallet each, checked on
 * the ClickHouse computation (and, for the same rows, on the TypeScript reference).
 */
describe('wallet statistics on hand-made sequences', () => {
  let rt: TestRuntime
  let stats: Map<string, WalletStats>
  let reference: Map<string, WalletStats>
  const w = (label: string) => addressFor(`stats-${label}`)
  const t = (daysAgo: number) => AS_OF - daysAgo * DAY
  const rows: SwapRowInput[] = [
    // buy 10 at $1, buy 10 at $3, sell 10 at $4: +$20 realized, 10 left at cost $20 ($2 each)
    buy(w('average'), 10, 10, t(5)),
    buy(w('average'), 10, 30, t(4)),
    sell(w('average'), 10, 40, t(3)),
    // 100 at $1; sell 25 for $50 (+25), sell 25 for $12.50 (-12.50): one win of two
    buy(w('partial'), 100, 100, t(10)),
    sell(w('partial'), 25, 50, t(9)),
    sell(w('partial'), 25, 12.5, t(8)),
    // a sell with no recorded buy: no PnL, the proceeds are unmatched
    sell(w('unbought'), 5, 20, t(2)),
    // a sell beyond the recorded quantity: 5 of 10 covered (cost $5, proceeds $15: +10), $15 unmatched
    buy(w('beyond'), 5, 5, t(7)),
    sell(w('beyond'), 10, 30, t(6)),
    // two tokens: A +5, B (10 at $2 each, 5 sold for $5) -5
    buy(w('tokens'), 10, 10, t(20)),
    buy(w('tokens'), 10, 20, t(19), other),
    sell(w('tokens'), 10, 15, t(18)),
    sell(w('tokens'), 5, 5, t(17), other),
    // a position across window boundaries: bought 100 days ago, sold in the 90- and 30-day windows
    buy(w('windows'), 10, 10, t(100)),
    sell(w('windows'), 5, 15, t(60)),
    sell(w('windows'), 5, 10, t(10)),
    // sold for what it cost: reduced, not won
    buy(w('even'), 10, 20, t(12)),
    sell(w('even'), 10, 20, t(11)),
    // a buy without USD: counted, not recorded; the sell has no cost basis
    buy(w('no-usd'), 10, null, t(3)),
    sell(w('no-usd'), 10, 50, t(1)), // also the last TOK price of all: $5
    // after the computation's time: not seen
    buy(w('average'), 1000, 1000, AS_OF + 1),
  ]
  // re-delivered (same key, later ingestion) and moved (same hash at another time): once, at the latest time
  const again = buy(w('redelivered'), 10, 10, t(50))
  const moved = sell(w('redelivered'), 10, 30, t(45))

  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertSwaps(rt, [...rows, again, moved])
    await insertSwaps(rt, [{ ...again, ingested_at: Date.now() + 1000 }])
    await insertSwaps(rt, [{ ...moved, timestamp: t(40), ingested_at: Date.now() + 2000 }])
    stats = new Map((await computeWalletStats(rt.clickhouse, rt.tables, AS_OF)).map((s) => [s.wallet, s]))
    const live: StatSwap[] = [...rows, again, { ...moved, timestamp: t(40) }].map(statSwapOf)
    reference = new Map(referenceWalletStats(live, AS_OF).map((s) => [s.wallet, s]))
  }, 120_000)
  afterAll(async () => rt?.cleanup())

  const all = (label: string) => stats.get(w(label))!.windows.all

  it('buy 10 at $1, buy 10 at $3, sell 10 at $4: +$20 realized, 10 left at $2', () => {
    const s = stats.get(w('average'))!
    expect(s.windows.all).toMatchObject({ trades: 3, realizedPnlUsd: 20, closedCostUsd: 20, roi: 1, positionsReduced: 1, positionsWon: 1, winRate: 1 })
    expect(s.windows.all.volumeUsd).toBe(80)
    // the USDC spent on the buys was never recorded as bought: its $40 of proceeds are unmatched
    expect(s.windows.all.unmatchedProceedsUsd).toBe(40)
    expect(s.windows.all.tokensTraded).toBe(2)
    // open: 10 TOK at the last TOK price of any wallet ($5) against a cost of $20, and the $40 of USDC at $1
    expect(s.openPositions).toBe(2)
    expect(s.unrealizedPnlUsd).toBeCloseTo(30, 9)
  })

  it('partial sells: +$25 then -$12.50, one win out of two', () => {
    expect(all('partial')).toMatchObject({ realizedPnlUsd: 12.5, closedCostUsd: 50, roi: 0.25, positionsReduced: 2, positionsWon: 1, winRate: 0.5 })
    // 50 left at $1 each, marked at the last TOK price ($5): +$200 (the USDC received: +$0)
    expect(stats.get(w('partial'))!.unrealizedPnlUsd).toBeCloseTo(200, 9)
  })

  it('a sell with no recorded buy realizes nothing and reports its proceeds as unmatched', () => {
    expect(all('unbought')).toMatchObject({ trades: 1, realizedPnlUsd: 0, positionsReduced: 0, winRate: null, roi: null, unmatchedProceedsUsd: 20 })
  })

  it('a sell beyond the recorded quantity: only the covered part has a cost basis', () => {
    expect(all('beyond')).toMatchObject({ realizedPnlUsd: 10, closedCostUsd: 5, matchedProceedsUsd: 15, positionsReduced: 1, winRate: 1 })
    // $15 for the 5 TOK never bought, and the $5 of USDC spent on the buy
    expect(all('beyond').unmatchedProceedsUsd).toBe(20)
  })

  it('a sell at its cost basis is a reduction but not a win', () => {
    expect(all('even')).toMatchObject({ realizedPnlUsd: 0, closedCostUsd: 20, positionsReduced: 1, positionsWon: 0, winRate: 0 })
  })

  it('several tokens: each its own average cost', () => {
    expect(all('tokens')).toMatchObject({ trades: 4, realizedPnlUsd: 0, closedCostUsd: 20, positionsReduced: 2, positionsWon: 1, winRate: 0.5, tokensTraded: 3 })
  })

  it('a window boundary in the middle of a position: sells are costed with the buy before the window', () => {
    const s = stats.get(w('windows'))!.windows
    expect(s['30d']).toMatchObject({ trades: 1, realizedPnlUsd: 5, closedCostUsd: 5, positionsReduced: 1, firstTradeMs: t(10), lastTradeMs: t(10) })
    expect(s['90d']).toMatchObject({ trades: 2, realizedPnlUsd: 15, closedCostUsd: 10, positionsReduced: 2, firstTradeMs: t(60) })
    expect(s['180d']).toMatchObject({ trades: 3, realizedPnlUsd: 15, firstTradeMs: t(100) })
    expect(s.all).toEqual(s['180d'])
    expect(s['30d'].volumeUsd).toBe(10)
    expect(s['90d'].volumeUsd).toBe(25)
  })

  it('a swap without a USD value is counted in trades and excluded from PnL, and reported', () => {
    expect(all('no-usd')).toMatchObject({ trades: 2, tradesWithoutUsd: 1, volumeUsd: 50, realizedPnlUsd: 0, positionsReduced: 0, unmatchedProceedsUsd: 50 })
  })

  it('a re-delivered swap counts once, a moved one at its latest time only', () => {
    const s = stats.get(w('redelivered'))!.windows
    expect(s.all).toMatchObject({ trades: 2, realizedPnlUsd: 20, volumeUsd: 40, lastTradeMs: t(40) })
  })

  it('swaps after the computation time are not seen; a wallet with none in a window has zeros', () => {
    expect(all('average').trades).toBe(3)
    expect(stats.get(w('windows'))!.windows['30d'].trades).toBe(1)
    expect(stats.get(w('redelivered'))!.windows['30d']).toMatchObject({ trades: 0, realizedPnlUsd: 0, firstTradeMs: null, winRate: null })
  })

  it('the TypeScript reference agrees on every wallet', () => {
    expect([...stats.keys()].sort()).toEqual([...reference.keys()].sort())
    for (const [wallet, s] of stats) {
      const r = reference.get(wallet)!
      expect(s.windows, wallet).toEqual(r.windows)
      expect(s.openPositions).toBe(r.openPositions)
      expect(s.unrealizedPnlUsd).toBeCloseTo(r.unrealizedPnlUsd, 6)
    }
  })
})
