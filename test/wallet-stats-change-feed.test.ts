import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { feedPosition } from '../shared/changes/change-feed.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { walletStatsOfRun } from '../shared/smart-money/compute-wallet-stats.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import { anySwapChangesSince } from '../shared/smart-money/run-changes.js'
import { storeWalletStats, type WalletStatsRun } from '../shared/smart-money/store-wallet-stats.js'
import type { WalletStats } from '../shared/smart-money/wallet-stats.js'
import { insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { DAY, expectSameWallets, HOUR, RandomSwaps, statSwapOf } from './support/wallet-stats-cases.js'

const AS_OF = Date.UTC(2026, 2, 1)

/**
 * The statistics runs take what changed from the change feed (shared/changes/change-feed.ts):
 * each run records the feed's position it read the swaps at, and the next takes the swap
 * changes after it, whatever the rows' stamps (ingested_at) say.
 */
describe('wallet statistics: what changed, from the change feed', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it('folds a row stored after a run though stamped before it, never a row twice, and ends equal to a full computation', async () => {
    const clock = Date.now()
    const gen = new RandomSwaps(5)
    const live = new Map<string, SwapRowInput>()
    const deliver = async (rows: SwapRowInput[]) => {
      await insertSwaps(rt, rows)
      for (const r of rows) live.set(r.hash, r)
    }
    const update = async (asOf: number, computedAt: number, what: string) => {
      const steps: string[] = []
      const run = await updateWalletStats(rt.clickhouse, rt.tables, asOf, computedAt, { onStep: (step) => steps.push(step) })
      expect(run.kind, what).toBe('incremental')
      const stats = await walletStatsOfRun(rt.clickhouse, rt.tables, run)
      expectSameWallets(stats, referenceWalletStats([...live.values()].map(statSwapOf), asOf), what)
      return { run, steps, stats }
    }
    const anythingNew = (run: WalletStatsRun) => anySwapChangesSince(rt.clickhouse, rt.tables, run.changesPosition)

    // history, stored long before the full run
    await deliver(Array.from({ length: 30 }, () => gen.swap(AS_OF - Math.floor(gen.random() * 200) * HOUR, clock - 600_000)))
    const full = await storeWalletStats(rt.clickhouse, rt.tables, AS_OF, clock)
    expect(full.changesPosition).toBeGreaterThan(0)
    expect(full.changesPosition).toBe(await feedPosition(rt.clickhouse, rt.tables))
    expect(await anythingNew(full)).toBe(false)

    // a new swap
    let asOf = AS_OF + 2 * HOUR
    await deliver([gen.swap(AS_OF + HOUR, clock + 1_000)])
    const second = await update(asOf, clock + 10_000, 'a new swap')

    // (1) stored after the second run, stamped before its clock and before the swap it took,
    // at a time before the run's: a watermark on the stamps would never take it
    await deliver([gen.swap(AS_OF + HOUR / 2, clock + 500, gen.wallets[1])])
    expect(await anythingNew(second.run)).toBe(true)
    const third = await update(asOf, clock + 20_000, 'a row stored after the run it was stamped before')
    expect(third.run.changesPosition).toBeGreaterThan(second.run.changesPosition)

    // (2) nothing new: the rows the third run took are not taken again
    expect(await anythingNew(third.run)).toBe(false)
    const fourth = await update(asOf, clock + 30_000, 'nothing new')
    expect(fourth.steps).toContain('wallets to refold (0)')
    expect(fourth.steps).toContain('marks (moved)')
    // and with a new swap in time, only it is folded: no late key, no refold, nothing counted twice
    asOf += HOUR
    await deliver([gen.swap(asOf - HOUR / 2, clock + 31_000, gen.wallets[1])])
    const fifth = await update(asOf, clock + 40_000, 'a new swap after a row taken late')
    expect(fifth.steps).toContain('wallets to refold (0)')
    expect(fifth.steps).toContain('marks (moved)')

    // (3) each stamped before the previous run's clock: a late swap, a retraction, and a
    // re-delivery at the same time as another wallet's (merged away before the run)
    const [someone, gone, rewalleted] = [...live.values()].slice(3, 6) as [SwapRowInput, SwapRowInput, SwapRowInput]
    await deliver([gen.swap(AS_OF - 50 * HOUR, clock + 600, someone.wallet_address)])
    await rt.clickhouse.insert({
      table: rt.tables.swapMoves,
      values: [
        {
          hash: gone.hash,
          chain_id: 1,
          timestamp: dateTime64Param(gone.timestamp),
          wallet_address: gone.wallet_address,
          token_sold_address: gone.token_sold_address,
          token_bought_address: gone.token_bought_address,
          superseded_at: dateTime64Param(clock + 700),
        },
      ],
      format: 'JSONEachRow',
    })
    live.delete(gone.hash)
    const other = [...live.values()].find((r) => r.wallet_address !== rewalleted.wallet_address)!
    const bought = gen.tokens.find((t) => t !== rewalleted.token_sold_address && t !== rewalleted.token_bought_address)!
    await deliver([{ ...rewalleted, wallet_address: other.wallet_address, token_bought_address: bought, ingested_at: clock + 800 }])
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.swaps} FINAL` })
    expect(await anythingNew(fifth.run)).toBe(true)
    const sixth = await update(asOf, clock + 50_000, 'a late swap, a retraction, a same-time re-delivery as another wallet')
    expect(sixth.steps.some((s) => s.startsWith('wallets to refold (0)'))).toBe(false)
    const byWallet = (stats: WalletStats[]) => new Map(stats.map((s) => [s.wallet, s]))
    expect(byWallet(sixth.stats).get(rewalleted.wallet_address!)).not.toEqual(byWallet(fifth.stats).get(rewalleted.wallet_address!))
    const recomputed = await storeWalletStats(rt.clickhouse, rt.tables, asOf, clock + 60_000)
    expectSameWallets(sixth.stats, await walletStatsOfRun(rt.clickhouse, rt.tables, recomputed), 'against a full computation')
  }, 60_000)

  it('makes a run full when the previous position cannot be read on from: none recorded (an earlier release), or older than the feed keeps', async () => {
    // later than the runs above, on the same swaps
    const at = Date.now() + 24 * HOUR
    const asOf = AS_OF + 24 * HOUR
    const full = await storeWalletStats(rt.clickhouse, rt.tables, asOf, at)
    expect((await updateWalletStats(rt.clickhouse, rt.tables, asOf, at + 1)).kind).toBe('incremental')
    // a run as an earlier release recorded it: no changes_position
    await rt.clickhouse.insert({
      table: rt.tables.walletStatsRuns,
      values: [{ computed_at: dateTime64Param(at + 2), as_of: dateTime64Param(asOf), wallets: 0, duration_ms: 0, kind: 'incremental', positions_since: dateTime64Param(full.computedAtMs) }],
      format: 'JSONEachRow',
    })
    expect(await anySwapChangesSince(rt.clickhouse, rt.tables, 0)).toBe(true)
    const next = await updateWalletStats(rt.clickhouse, rt.tables, asOf, at + 3)
    expect(next.kind).toBe('full')
    expect(next.changesPosition).toBe(full.changesPosition)
    // the feed keeps 30 days of changes: a run 29 days or more after its predecessor is full
    expect((await updateWalletStats(rt.clickhouse, rt.tables, asOf, next.computedAtMs + 28 * DAY)).kind).toBe('incremental')
    expect((await updateWalletStats(rt.clickhouse, rt.tables, asOf, next.computedAtMs + 57 * DAY)).kind).toBe('full')
  })
})
