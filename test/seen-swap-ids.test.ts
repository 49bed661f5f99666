import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seenSwapsKeptAnHour } from '../shared/storage/migrations/025_seen_swaps_kept_an_hour.js'
import { seenSwapIds } from '../shared/storage/migrations/026_seen_swap_ids.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'
import { anyUnseenSwaps, recordSeenSwaps } from '../shared/smart-money/seen-swaps.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2026, 10, 2)
const RUN_AT = T0 + 60_000
const WATERMARK = T0

function swap(name: string, ingestedAt: number): SwapRowInput {
  return {
    hash: hashFor(`ids-${name}`),
    timestamp: T0 + 1_000,
    wallet_address: addressFor('ids-w'),
    token_sold_address: addressFor('ids-a'),
    token_sold_amount: '1',
    token_bought_address: addressFor('ids-b'),
    token_bought_amount: '2',
    value_usd: 1,
    ingested_at: ingestedAt,
  }
}

const tableExists = async (rt: TestRuntime, table: string) =>
  Number((await queryRows<{ result: number }>(rt.clickhouse, `EXISTS TABLE ${table}`))[0]?.result) === 1

async function applyMigration26(rt: TestRuntime, t: Tables): Promise<void> {
  for (const query of seenSwapIds.statements(t)) await rt.clickhouse.command({ query })
  await seenSwapIds.run?.(rt.clickhouse, t)
}

/** Migration 26 keeps the seen swap rows (seen-swaps.ts) as 128-bit ids instead of whole rows. */
describe('seen swap ids (migration 26)', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('on a store at migration 25, turns the seen rows into ids that a run reads as the same rows, drops the old table, and changes nothing run again', async () => {
    // The seen tables in names of their own; the swaps are the store's.
    const t: Tables = {
      ...rt.tables,
      walletStatsSeenSwaps: `${rt.tables.database}.upgrade_ids_new`,
      hourlyWalletStatsSeenSwaps: `${rt.tables.database}.upgrade_ids_old`,
    }
    for (const query of seenSwapsKeptAnHour.statements(t)) await rt.clickhouse.command({ query })
    // Three swaps stamped after the watermark.
    await insertSwaps(rt, [swap('seen-1', T0 + 5_000), swap('seen-2', T0 + 6_000), swap('unseen', T0 + 7_000)])
    // The run saw the first two, as migration 25's recording wrote them, a minute ago.
    await rt.clickhouse.command({
      query: `INSERT INTO ${t.hourlyWalletStatsSeenSwaps} (computed_at, timestamp, hash, chain_id, ingested_at, recorded_at)
        SELECT fromUnixTimestamp64Milli({run: Int64}, 'UTC'), timestamp, hash, chain_id, ingested_at, now() - 60
        FROM ${rt.tables.swaps} WHERE hash IN ({seen_1: String}, {seen_2: String})`,
      query_params: { run: RUN_AT, seen_1: hashFor('ids-seen-1'), seen_2: hashFor('ids-seen-2') },
    })
    const run = { computedAtMs: RUN_AT, swapsWatermarkMs: WATERMARK }

    await applyMigration26(rt, t)
    expect(await tableExists(rt, t.hourlyWalletStatsSeenSwaps)).toBe(false)
    const rows = await queryRows<{ computed_at: string; age_s: string }>(
      rt.clickhouse,
      `SELECT toUnixTimestamp64Milli(computed_at) AS computed_at, dateDiff('second', recorded_at, now()) AS age_s FROM ${t.walletStatsSeenSwaps}`,
    )
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      // Each keeps the run it belongs to and when it was recorded.
      expect(Number(row.computed_at)).toBe(RUN_AT)
      expect(Number(row.age_s)).toBeGreaterThanOrEqual(55)
    }
    // The unseen swap is still new to the run; once its row is recorded as a run records it, nothing is.
    expect(await anyUnseenSwaps(rt.clickhouse, t, run)).toBe(true)
    await recordSeenSwaps(rt.clickhouse, t, RUN_AT, T0 + 6_500)
    expect(await anyUnseenSwaps(rt.clickhouse, t, run)).toBe(false)

    await applyMigration26(rt, t)
    const [count] = await queryRows<{ n: string }>(rt.clickhouse, `SELECT count() AS n FROM ${t.walletStatsSeenSwaps}`)
    expect(Number(count?.n)).toBe(3)
  })
})
