import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { walletStatsSeenSwaps } from '../shared/storage/migrations/024_wallet_stats_seen_swaps.js'
import { seenSwapsKeptAnHour } from '../shared/storage/migrations/025_seen_swaps_kept_an_hour.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'
import { hashFor } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const MINUTE = 60_000
const T0 = Date.UTC(2026, 10, 1)

/** A seen row of run `computedAtMs`, recorded `agoMs` before now (the database's clock). */
async function insertSeen(rt: TestRuntime, table: string, name: string, computedAtMs: number, agoMs: number): Promise<void> {
  await rt.clickhouse.command({
    query: `INSERT INTO ${table} (computed_at, timestamp, hash, chain_id, ingested_at, recorded_at)
      SELECT fromUnixTimestamp64Milli({computed_at: Int64}, 'UTC'), fromUnixTimestamp64Milli({t: Int64}, 'UTC'), {hash: String}, 1,
        fromUnixTimestamp64Milli({t: Int64}, 'UTC'), now() - toIntervalSecond({ago_s: UInt32})`,
    query_params: { computed_at: computedAtMs, t: T0, hash: hashFor(name), ago_s: Math.round(agoMs / 1000) },
  })
}

const seenHashes = async (rt: TestRuntime, table: string) =>
  (await queryRows<{ hash: string }>(rt.clickhouse, `SELECT hash FROM ${table} ORDER BY hash`)).map((r) => r.hash)

const tableExists = async (rt: TestRuntime, table: string) =>
  Number((await queryRows<{ result: number }>(rt.clickhouse, `EXISTS TABLE ${table}`))[0]?.result) === 1

async function applyMigration25(rt: TestRuntime, t: Tables): Promise<void> {
  for (const query of seenSwapsKeptAnHour.statements(t)) await rt.clickhouse.command({ query })
  await seenSwapsKeptAnHour.run?.(rt.clickhouse, t)
}

/**
 * The swap rows a statistics run saw (seen-swaps.ts) are read once, by the next run a minute
 * later: migration 25 keeps them an hour instead of a day (at a run a minute each row is
 * recorded about three times, so a day of them was three days of ingestion).
 */
describe('seen swaps kept an hour (migration 25)', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('drops the rows recorded more than an hour ago and keeps the recent ones (the ids of migration 26 as the rows of 25)', async () => {
    const table = rt.tables.walletStatsSeenSwaps
    const insertId = (name: string, agoMs: number) =>
      rt.clickhouse.command({
        query: `INSERT INTO ${table} (computed_at, row_id, recorded_at)
          SELECT fromUnixTimestamp64Milli({computed_at: Int64}, 'UTC'), sipHash128({name: String}), now() - toIntervalSecond({ago_s: UInt32})`,
        query_params: { computed_at: T0, name, ago_s: Math.round(agoMs / 1000) },
      })
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

  it('on a store at migration 24, copies the last hour of the old rows and drops the old table; run again, it changes nothing', async () => {
    // The old table as migration 24 left it, beside a fresh one, in names of its own.
    const t: Tables = {
      ...rt.tables,
      hourlyWalletStatsSeenSwaps: `${rt.tables.database}.upgrade_seen_new`,
      legacyWalletStatsSeenSwaps: `${rt.tables.database}.upgrade_seen_old`,
    }
    for (const query of walletStatsSeenSwaps.statements(t)) await rt.clickhouse.command({ query })
    await insertSeen(rt, t.legacyWalletStatsSeenSwaps, 'upgrade-latest-run', T0 + 2 * MINUTE, MINUTE)
    await insertSeen(rt, t.legacyWalletStatsSeenSwaps, 'upgrade-older-run', T0 + MINUTE, 2 * 60 * MINUTE)

    await applyMigration25(rt, t)
    expect(await tableExists(rt, t.legacyWalletStatsSeenSwaps)).toBe(false)
    expect(await seenHashes(rt, t.hourlyWalletStatsSeenSwaps)).toEqual([hashFor('upgrade-latest-run')])
    const [copied] = await queryRows<{ computed_at: string; age_s: string }>(
      rt.clickhouse,
      `SELECT toUnixTimestamp64Milli(computed_at) AS computed_at, dateDiff('second', recorded_at, now()) AS age_s FROM ${t.hourlyWalletStatsSeenSwaps}`,
    )
    // The copy keeps the run it belongs to and when it was recorded (its hour starts then, not at the upgrade).
    expect(Number(copied?.computed_at)).toBe(T0 + 2 * MINUTE)
    expect(Number(copied?.age_s)).toBeGreaterThanOrEqual(55)

    await applyMigration25(rt, t)
    expect(await seenHashes(rt, t.hourlyWalletStatsSeenSwaps)).toEqual([hashFor('upgrade-latest-run')])
  })

  it('leaves no table of the day-long or hour-long whole-row layouts on a new store', async () => {
    expect(await tableExists(rt, rt.tables.legacyWalletStatsSeenSwaps)).toBe(false)
    expect(await tableExists(rt, rt.tables.hourlyWalletStatsSeenSwaps)).toBe(false)
    expect(await tableExists(rt, rt.tables.walletStatsSeenSwaps)).toBe(true)
  })
})
