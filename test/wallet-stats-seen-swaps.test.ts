import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { walletStatsOfRun } from '../shared/smart-money/compute-wallet-stats.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import { anyUnseenSwaps } from '../shared/smart-money/seen-swaps.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { expectSameWallets, HOUR, RandomSwaps, statSwapOf } from './support/wallet-stats-cases.js'

const AS_OF = Date.UTC(2026, 2, 1)
const SETTLE_MS = 180_000

/**
 * Swap rows become visible out of stamp order (an insert in flight while a run reads), so
 * the statistics runs take the rows the previous run did not see rather than the rows
 * stamped after the latest it saw (shared/smart-money/seen-swaps.ts).
 */
describe('wallet statistics: rows stored after a run though stamped before it', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it('are taken by the next run, and a row a run took is not taken again', async () => {
    const clock = Date.now()
    const gen = new RandomSwaps(7)
    const live: SwapRowInput[] = []
    const deliver = async (rows: SwapRowInput[]) => {
      await insertSwaps(rt, rows)
      live.push(...rows)
    }
    const update = async (asOf: number, computedAt: number) => {
      const steps: string[] = []
      const run = await updateWalletStats(rt.clickhouse, rt.tables, asOf, computedAt, { settleMs: SETTLE_MS, onStep: (step) => steps.push(step) })
      expect(run.kind).toBe('incremental')
      return { run, steps }
    }
    const expectLikeReference = async (run: Awaited<ReturnType<typeof update>>['run'], what: string) =>
      expectSameWallets(await walletStatsOfRun(rt.clickhouse, rt.tables, run), referenceWalletStats(live.map(statSwapOf), run.asOfMs), what)

    // stored long before the full run
    await deliver(Array.from({ length: 30 }, () => gen.swap(AS_OF - Math.floor(gen.random() * 200) * HOUR, clock - 10 * SETTLE_MS)))
    await storeWalletStats(rt.clickhouse, rt.tables, AS_OF, clock, { settleMs: SETTLE_MS })

    // a new swap, stamped and stored before the next run
    const asOf = AS_OF + 2 * HOUR
    await deliver([gen.swap(AS_OF + HOUR, clock + 1_000)])
    const second = await update(asOf, clock + 10_000)
    await expectLikeReference(second.run, 'the new swap')

    // stamped before the swap the second run saw (its insert in flight), stored after that run
    const inFlight = gen.swap(AS_OF + HOUR / 2, clock + 500, gen.wallets[1])
    await deliver([inFlight])
    expect(await anyUnseenSwaps(rt.clickhouse, rt.tables, second.run)).toBe(true)
    const third = await update(asOf, clock + 20_000)
    await expectLikeReference(third.run, 'the swap stored after the run it was stamped before')

    // nothing new: the rows the third run took (both stamped after its watermark) are not taken again
    expect(await anyUnseenSwaps(rt.clickhouse, rt.tables, third.run)).toBe(false)
    const fourth = await update(asOf, clock + 30_000)
    expect(fourth.steps.some((s) => s.startsWith('wallets to refold (0)'))).toBe(true)
    expect(fourth.steps.some((s) => s.startsWith('marks (moved)'))).toBe(true)
    await expectLikeReference(fourth.run, 'nothing new')
  }, 60_000)
})
