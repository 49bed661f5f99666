import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { binaryPositionKeys } from '../shared/storage/migrations/021_binary_position_keys.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { latestWalletStatsRun, storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2026, 4, 1)
const HOUR = 3_600_000

/**
 * Migration 21 moves the carried positions to a table keyed by address bytes without moving
 * their rows: a store whose runs stored positions before it must not be continued from the
 * new, empty table. After the migration the stored runs have no positions to continue, so
 * the next run is a full one. (Migration 17 did the same when marks changed keys.)
 */
describe('wallet statistics: migration 21 on a store with runs', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
    await insertSwaps(
      rt,
      Array.from({ length: 6 }, (_, i) => ({
        hash: hashFor(`m21-${i}`),
        wallet_address: addressFor(`m21-w${i % 2}`),
        timestamp: T0 + i * HOUR,
        token_sold_address: addressFor('m21-usd'),
        token_bought_address: addressFor('m21-token'),
        value_usd: 100 + i,
      })),
    )
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it('dropped the old positions table, and clears the runs positions, so the next run is full; re-running it changes nothing more', async () => {
    const [old] = await queryRows<{ result: number }>(rt.clickhouse, `EXISTS TABLE ${rt.tables.legacyWalletPositions}`)
    expect(Number(old?.result)).toBe(0)
    const first = await storeWalletStats(rt.clickhouse, rt.tables, T0 + 10 * HOUR)
    expect(first.positionsSinceMs).toBe(first.computedAtMs)
    for (let i = 0; i < 2; i++) {
      for (const query of binaryPositionKeys.statements(rt.tables)) await rt.clickhouse.command({ query })
    }
    expect((await latestWalletStatsRun(rt.clickhouse, rt.tables))?.positionsSinceMs).toBeNull()

    const next = await updateWalletStats(rt.clickhouse, rt.tables, T0 + 11 * HOUR, first.computedAtMs + 1_000)
    expect(next.kind).toBe('full')
    expect(next.wallets).toBe(2)
    const after = await updateWalletStats(rt.clickhouse, rt.tables, T0 + 12 * HOUR, first.computedAtMs + 2_000)
    expect(after.kind).toBe('incremental')
  })
})
