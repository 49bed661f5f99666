import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { walletSumsOnPositions } from '../shared/migrations/017_wallet_sums_on_positions.js'
import { updateWalletStats } from '../shared/wallet-stats/incremental-run.js'
import { latestWalletStatsRun, storeWalletStats } from '../shared/wallet-stats/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2026, 4, 1)
const HOUR = 3_600_000

/**
 * Migration 17 changes how marks are compared (45-byte keys instead of hex text): a store
 * whose runs stored positions and marks before it must not be continued from them. After
 * the migration the stored runs have no positions to continue, so the next run is a full one.
 */
describe('wallet statistics: migration 17 on a store with runs', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertSwaps(
      rt,
      Array.from({ length: 6 }, (_, i) => ({
        hash: hashFor(`m17-${i}`),
        wallet_address: addressFor(`m17-w${i % 2}`),
        timestamp: T0 + i * HOUR,
        token_sold_address: addressFor('m17-usd'),
        token_bought_address: addressFor('m17-token'),
        value_usd: 100 + i,
      })),
    )
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it('clears the runs positions, so the next run is full; re-running it changes nothing more', async () => {
    const first = await storeWalletStats(rt.clickhouse, rt.tables, T0 + 10 * HOUR)
    expect(first.positionsSinceMs).toBe(first.computedAtMs)
    for (let i = 0; i < 2; i++) {
      for (const query of walletSumsOnPositions.statements(rt.tables)) await rt.clickhouse.command({ query })
    }
    expect((await latestWalletStatsRun(rt.clickhouse, rt.tables))?.positionsSinceMs).toBeNull()

    const next = await updateWalletStats(rt.clickhouse, rt.tables, T0 + 11 * HOUR, first.computedAtMs + 1_000)
    expect(next.kind).toBe('full')
    expect(next.wallets).toBe(2)
    const after = await updateWalletStats(rt.clickhouse, rt.tables, T0 + 12 * HOUR, first.computedAtMs + 2_000)
    expect(after.kind).toBe('incremental')
  })
})
