import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate, appliedVersions } from '../shared/storage/migrate.js'
import { migrations } from '../shared/storage/migrations/index.js'
import { PLAIN_WALLET_STATS_AMOUNTS } from '../shared/storage/migrations/023_plain_wallet_stats_amounts.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('schema migrations', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt.cleanup()
  })

  it('were all applied and recorded at start-up', async () => {
    const versions = await appliedVersions(rt.clickhouse, rt.tables)
    expect([...versions].sort()).toEqual(migrations.map((m) => m.version).sort())
  })

  it('apply nothing twice: a second start changes nothing', async () => {
    const rowsBefore = await migrationRows(rt)
    expect(await migrate(rt.clickhouse, rt.tables)).toEqual([])
    expect(await migrate(rt.clickhouse, rt.tables)).toEqual([])
    expect(await migrationRows(rt)).toEqual(rowsBefore)
  })

  it('created every table', async () => {
    const rs = await rt.clickhouse.query({
      query: 'SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name',
      query_params: { db: rt.tables.database },
      format: 'JSONEachRow',
    })
    const names = (await rs.json<{ name: string }>()).map((r) => r.name)
    const tables = names.filter((n) => !n.startsWith('mv_'))
    expect(tables).toEqual(
      expect.arrayContaining(['candle_marks', 'candle_refresh_state', 'candles_1h', 'dead_letters', 'holdings', 'holdings_by_wallet', 'prices',
        'schema_migrations', 'swap_legs_by_token', 'swap_locations', 'swap_moves', 'swaps_by_time', 'swap_rows_by_wallet',
        'swap_versions_incoming', 'swaps_incoming', 'tokens']),
    )
    expect(tables).not.toContain('swaps') // the first layout, moved by migration 2
    expect(names.filter((n) => n.startsWith('mv_'))).toEqual([
      'mv_candle_marks_prices', 'mv_candle_marks_swaps', 'mv_candle_marks_tokens', 'mv_holdings_by_wallet', 'mv_move_tombstones', 'mv_same_time_leg_tombstones', 'mv_same_time_wallet_tombstones', 'mv_swap_legs', 'mv_swap_moves', 'mv_swap_rows', 'mv_swap_rows_by_wallet', 'mv_swap_versions',
    ])
  })

  it("store wallet_stats' USD amounts plain and its other columns as before", async () => {
    const rs = await rt.clickhouse.query({
      query: "SELECT name, compression_codec FROM system.columns WHERE database = {db:String} AND table = 'wallet_stats' ORDER BY name",
      query_params: { db: rt.tables.database },
      format: 'JSONEachRow',
    })
    const codecs = Object.fromEntries((await rs.json<{ name: string; compression_codec: string }>()).map((c) => [c.name, c.compression_codec]))
    for (const amount of PLAIN_WALLET_STATS_AMOUNTS) expect(codecs[amount]).toBe('CODEC(NONE)')
    expect(codecs.trades).toBe('')
    expect(codecs.wallet_address).toBe('')
  })
})

async function migrationRows(rt: TestRuntime) {
  const rs = await rt.clickhouse.query({
    query: `SELECT version, name, applied_at FROM ${rt.tables.migrations} ORDER BY version`,
    format: 'JSONEachRow',
  })
  return rs.json()
}
