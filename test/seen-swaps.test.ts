import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../shared/storage/query-rows.js'
import { INGESTED_AT_INDEX } from '../shared/storage/schema/swaps-schema.js'
import { anyUnseenSwaps, recordSeenSwaps, SEEN_ROW_ID } from '../shared/smart-money/seen-swaps.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const T0 = Date.UTC(2026, 10, 1)
const RUN_AT = T0 + 60_000
const MINUTE = 60_000

function swap(i: number, ingestedAt: number): SwapRowInput {
  return {
    hash: hashFor(`seen-${i}`),
    timestamp: T0 + i * 1000,
    wallet_address: addressFor('seen-w'),
    token_sold_address: addressFor('seen-a'),
    token_sold_amount: '1',
    token_bought_address: addressFor('seen-b'),
    token_bought_amount: '2',
    value_usd: 1,
    ingested_at: ingestedAt,
  }
}

/** What a statistics run saw of the swaps (seen-swaps.ts), and the "anything new since?" its successor asks. */
describe('seen swaps', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('takes as new only the rows a run did not see: a row stamped before the latest one seen but stored after the run is new', async () => {
    const run = { computedAtMs: RUN_AT, swapsWatermarkMs: T0 + 6_000 }
    await insertSwaps(rt, [swap(1, T0 + 5_000), swap(2, T0 + 9_000)])
    await recordSeenSwaps(rt.clickhouse, rt.tables, run.computedAtMs, run.swapsWatermarkMs)
    const [seen] = await queryRows<{ ids: string; hashes: string[] }>(
      rt.clickhouse,
      `SELECT (SELECT count() FROM ${rt.tables.walletStatsSeenSwaps}) AS ids,
        (SELECT groupArray(hash) FROM ${rt.tables.swaps} WHERE ${SEEN_ROW_ID} IN (SELECT row_id FROM ${rt.tables.walletStatsSeenSwaps})) AS hashes`,
    )
    // only the row stamped after the watermark is recorded: the one before it counts as stored
    expect(Number(seen?.ids)).toBe(1)
    expect(seen?.hashes).toEqual([hashFor('seen-2')])
    expect(await anyUnseenSwaps(rt.clickhouse, rt.tables, run)).toBe(false)
    // what another run saw does not count for this one
    expect(await anyUnseenSwaps(rt.clickhouse, rt.tables, { ...run, computedAtMs: RUN_AT + 1 })).toBe(true)
    // stamped before the latest stamp the run saw (9 s), stored after it: new
    await insertSwaps(rt, [swap(3, T0 + 7_000)])
    expect(await anyUnseenSwaps(rt.clickhouse, rt.tables, run)).toBe(true)
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

  it('keeps the ids a run recorded an hour: older ones are dropped, recent ones kept', async () => {
    const table = rt.tables.walletStatsSeenSwaps
    const insertId = (name: string, agoMs: number) =>
      rt.clickhouse.command({
        query: `INSERT INTO ${table} (computed_at, row_id, recorded_at)
          SELECT fromUnixTimestamp64Milli({computed_at: Int64}, 'UTC'), sipHash128({name: String}), now() - toIntervalSecond({ago_s: UInt32})`,
        query_params: { computed_at: T0, name, ago_s: Math.round(agoMs / 1000) },
      })
    await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
    await insertId('kept-recent', MINUTE)
    await insertId('kept-old', 2 * 60 * MINUTE)
    const ids = async () =>
      (await queryRows<{ recent: number }>(rt.clickhouse, `SELECT row_id = sipHash128('kept-recent') AS recent FROM ${table}`)).map((r) => Number(r.recent))
    // Expired rows go when their part is next looked at by a merge; this asks for one.
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
    const deadline = Date.now() + 20_000
    let kept = await ids()
    while (kept.length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      kept = await ids()
    }
    expect(kept).toEqual([1])
  })
})
