import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INGESTED_AT_INDEX } from '../shared/migrations/019_swaps_ingested_at_index.js'
import { queryRows } from '../shared/query-rows.js'
import { swapsIngestedUntil } from '../shared/wallet-stats/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2026, 10, 1)

function swap(i: number, ingestedAt: number): SwapRowInput {
  return {
    hash: hashFor(`until-${i}`),
    timestamp: T0 + i * 1000,
    wallet_address: addressFor('until-w'),
    token_sold_address: addressFor('until-a'),
    token_sold_amount: '1',
    token_bought_address: addressFor('until-b'),
    token_bought_amount: '2',
    value_usd: 1,
    ingested_at: ingestedAt,
  }
}

/** The statistics' "anything new since the watermark?" (migration 19's index skips the older granules). */
describe('swaps ingested until', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('is the latest ingested_at; since a watermark, the latest from it on, or null when nothing is', async () => {
    expect(await swapsIngestedUntil(rt.clickhouse, rt.tables)).toBeNull()
    await insertSwaps(rt, [swap(1, T0 + 5_000), swap(2, T0 + 9_000)])
    expect(await swapsIngestedUntil(rt.clickhouse, rt.tables)).toBe(T0 + 9_000)
    expect(await swapsIngestedUntil(rt.clickhouse, rt.tables, T0 + 9_000)).toBe(T0 + 9_000)
    expect(await swapsIngestedUntil(rt.clickhouse, rt.tables, T0 + 9_001)).toBeNull()
    // a late swap (an older time, ingested later) moves it
    await insertSwaps(rt, [swap(0, T0 + 12_000)])
    expect(await swapsIngestedUntil(rt.clickhouse, rt.tables, T0 + 9_000)).toBe(T0 + 12_000)
  })

  it('skips the granules ingested before the watermark by the ingested_at index', async () => {
    const [index] = await queryRows<{ name: string; type: string }>(
      rt.clickhouse,
      `SELECT name, type FROM system.data_skipping_indices WHERE database = {db: String} AND table = {table: String}`,
      { db: rt.tables.database, table: rt.tables.swaps.slice(rt.tables.database.length + 1) },
    )
    expect(index).toEqual({ name: INGESTED_AT_INDEX, type: 'minmax' })
    const plan = await queryRows<{ explain: string }>(
      rt.clickhouse,
      `EXPLAIN indexes = 1 SELECT count() FROM ${rt.tables.swaps} WHERE ingested_at >= {since: DateTime64(3, 'UTC')}`,
      { since: '2026-11-01 00:00:09.001' },
    )
    expect(plan.map((r) => r.explain.trim())).toContain(`Name: ${INGESTED_AT_INDEX}`)
  })
})
