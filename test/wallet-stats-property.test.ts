import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeWalletStats } from '../shared/smart-money/compute-wallet-stats.js'
import { FOLD_CHUNK_LEGS } from '../shared/smart-money/pair-fold-sql.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import type { StatSwap } from '../shared/smart-money/wallet-stats.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { seededFloats as prng } from '../ingest/sample-data/prng.js'
import { DAY, expectSameWallets, HOUR, statSwapOf } from './support/wallet-stats-cases.js'

const AS_OF = Date.UTC(2026, 2, 1, 0, 0, 0)

interface Case {
  /** Everything delivered, in delivery order (re-deliveries and moves included). */
  deliveries: SwapRowInput[][]
  /** The live version of each swap: the latest delivery. */
  live: StatSwap[]
}

function randomCase(seed: number, { wallets: walletCount = 6, tokens: tokenCount = 4, swaps = 400 } = {}): Case {
  const rnd = prng(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const wallets = Array.from({ length: walletCount }, (_, i) => addressFor(`prop-${seed}-wallet-${i}`))
  const tokens = Array.from({ length: tokenCount }, (_, i) => addressFor(`prop-${seed}-token-${i}`))
  /** 0 now and then; otherwise up to 10^30 (beyond 64 bits), so the quantities need UInt256. */
  const amount = () => (rnd() < 0.03 ? 0n : BigInt(Math.floor(rnd() * 1e6) + 1) * 10n ** BigInt(Math.floor(rnd() * 25)))
  const rows: SwapRowInput[] = []
  for (let i = 0; i < swaps; i++) {
    const sold = pick(tokens)
    const bought = pick(tokens.filter((t) => t !== sold))
    rows.push({
      hash: hashFor(`prop-${seed}-${i}`),
      // on an hour grid over 400 days (and a few after as_of), so some swaps share a time
      timestamp: AS_OF - Math.floor(rnd() * 400 * 24) * HOUR + (rnd() < 0.02 ? 5 * DAY : 0),
      wallet_address: pick(wallets),
      token_sold_address: sold,
      token_sold_amount: amount().toString(),
      token_bought_address: bought,
      token_bought_amount: amount().toString(),
      value_usd: rnd() < 0.1 ? null : Math.round(rnd() * 1e8) / 100,
      ingested_at: Date.now(),
    })
  }
  const redelivered = rows.filter(() => rnd() < 0.1).map((r) => ({ ...r, ingested_at: r.ingested_at! + 1000 }))
  const moved = rows.filter(() => rnd() < 0.05).map((r) => ({ ...r, timestamp: r.timestamp - 3 * HOUR, ingested_at: r.ingested_at! + 2000 }))
  const latest = new Map<string, SwapRowInput>()
  for (const r of [...rows, ...redelivered, ...moved]) latest.set(r.hash, r)
  const live = [...latest.values()].map(statSwapOf)
  return { deliveries: [rows.slice(0, swaps / 2), rows.slice(swaps / 2), redelivered, moved], live }
}

/**
 * The ClickHouse computation equals the plain TypeScript reference on random sequences:
 * amounts beyond 64 bits, swaps without USD, zero amounts, shared times, re-deliveries and
 * moves (the reference sees only the latest delivery of each swap, as the reads do).
 */
describe('wallet statistics: ClickHouse against the TypeScript reference', () => {
  let rt: TestRuntime
  const SEEDS = [1, 7, 42, 1234, 99991]
  const cases = new Map(SEEDS.map((seed) => [seed, randomCase(seed)]))

  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it.each(SEEDS)('seed %i', async (seed) => {
    const c = cases.get(seed)!
    // each seed starts from an empty store (the truncated tables are all the computation reads)
    for (const table of [rt.tables.swaps, rt.tables.swapLocations, rt.tables.swapsByWallet]) {
      await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
    }
    for (const batch of c.deliveries) await insertSwaps(rt, batch)
    const got = await computeWalletStats(rt.clickhouse, rt.tables, AS_OF)
    const want = referenceWalletStats(c.live, AS_OF)
    expectSameWallets(got, want, `seed ${seed}`)
    // the sequences exercise what they should
    const all = want.flatMap((s) => [s.windows.all])
    expect(all.some((s) => s.positionsReduced > 0 && s.positionsWon < s.positionsReduced)).toBe(true)
    expect(all.some((s) => s.unmatchedProceedsUsd > 0)).toBe(true)
    expect(all.some((s) => s.tradesWithoutUsd > 0)).toBe(true)
  }, 60_000)

  it('folds a pair of more legs than one chunk of the fold holds as the reference does', async () => {
    // one wallet trading two tokens: each swap is a leg of both pairs
    const c = randomCase(5, { wallets: 1, tokens: 2, swaps: 2 * FOLD_CHUNK_LEGS + 100 })
    // the swaps folded (those at or before the run's time) make each pair three chunks
    expect(c.live.filter((swap) => swap.timestampMs <= AS_OF).length).toBeGreaterThan(2 * FOLD_CHUNK_LEGS)
    for (const table of [rt.tables.swaps, rt.tables.swapLocations, rt.tables.swapsByWallet]) {
      await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
    }
    for (const batch of c.deliveries) await insertSwaps(rt, batch)
    const got = await computeWalletStats(rt.clickhouse, rt.tables, AS_OF)
    expectSameWallets(got, referenceWalletStats(c.live, AS_OF), 'three chunks')
    expect(got[0]!.windows.all.positionsReduced).toBeGreaterThan(FOLD_CHUNK_LEGS / 4)
  }, 60_000)
})
