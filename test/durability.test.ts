import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchWriter } from '../ingest/pipeline/batch-writer.js'
import { swapLines } from '../ingest/pipeline/swap-lines.js'
import { loadConfig } from '../shared/platform/config.js'
import { applyInsertDurability, isDurable } from '../shared/storage/insert-durability.js'
import { createLogger } from '../shared/platform/logger.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { swapEntryTables } from '../shared/storage/schema/swaps-schema.js'
import { syntheticSwap } from '../bench/ingest/synthetic-swaps.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Durable acknowledgement: by default (CLICKHOUSE_FSYNC=1) every MergeTree table of the
 * store fsyncs each inserted part before the insert returns, so a job acknowledged after
 * its insert survives an OS crash. Read back from the tables' own settings, and seen in
 * ClickHouse's count of fsync calls during an insert through the batch writer.
 */
async function mergeTreeTables(rt: TestRuntime): Promise<Array<{ name: string; engine_full: string }>> {
  return queryRows(
    rt.clickhouse,
    "SELECT name, engine_full FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name",
    { db: rt.tables.database },
  )
}

async function fsyncCalls(rt: TestRuntime): Promise<number> {
  const [row] = await queryRows<{ n: string }>(
    rt.clickhouse,
    "SELECT toString(sum(value)) AS n FROM system.events WHERE event IN ('FileSync', 'DirectorySync')",
  )
  return Number(row?.n ?? 0)
}

/** fsync calls ClickHouse made while 500 swaps went through the batch writer into the swaps tables. */
async function fsyncsOfOneInsert(rt: TestRuntime, from: number): Promise<number> {
  const writer = new BatchWriter(rt.clickhouse, { flushRows: 10_000, flushMs: 10 }, createLogger('silent'))
  const records = Array.from({ length: 500 }, (_, i) => syntheticSwap(from + i))
  const { encoded } = swapLines(records, Date.now())
  const before = await fsyncCalls(rt)
  await writer.write([{ table: swapEntryTables(rt.tables), encoded }])
  return (await fsyncCalls(rt)) - before
}

describe('durable inserts (CLICKHOUSE_FSYNC)', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('is on by default, and CLICKHOUSE_FSYNC=0 turns it off', () => {
    expect(loadConfig({}).storage.fsync).toBe(true)
    expect(loadConfig({ CLICKHOUSE_FSYNC: '0' }).storage.fsync).toBe(false)
    expect(() => loadConfig({ CLICKHOUSE_FSYNC: 'sometimes' })).toThrow(/CLICKHOUSE_FSYNC/)
  })

  it('every MergeTree table of a new store has fsync_after_insert = 1 and fsync_part_directory = 1', async () => {
    const tables = await mergeTreeTables(rt)
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['swaps_by_time', 'swap_locations', 'holdings', 'tokens', 'prices']))
    for (const table of tables) {
      expect(table.engine_full, table.name).toMatch(/SETTINGS .*fsync_after_insert = 1/)
      expect(table.engine_full, table.name).toMatch(/fsync_part_directory = 1/)
      expect(isDurable(table.engine_full)).toBe(true)
    }
    // The table's own settings stay as declared next to them.
    expect(tables.find((t) => t.name === 'swaps_by_time')!.engine_full).toMatch(/index_granularity = 1024/)
  })

  it('an insert through the batch writer fsyncs its parts; with the setting reset it does not', async () => {
    expect(await fsyncsOfOneInsert(rt, 0)).toBeGreaterThan(0)

    const changed = await applyInsertDurability(rt.clickhouse, rt.tables, { fsync: false })
    expect(changed).toEqual((await mergeTreeTables(rt)).map((t) => t.name))
    for (const table of await mergeTreeTables(rt)) expect(table.engine_full).not.toMatch(/fsync_after_insert|fsync_part_directory/)
    expect(await fsyncsOfOneInsert(rt, 1_000)).toBe(0)

    // Back on; a second pass changes nothing (a restart does not rewrite table metadata).
    expect((await applyInsertDurability(rt.clickhouse, rt.tables, { fsync: true })).length).toBe(changed.length)
    expect(await applyInsertDurability(rt.clickhouse, rt.tables, { fsync: true })).toEqual([])
    expect(await fsyncsOfOneInsert(rt, 2_000)).toBeGreaterThan(0)
    const [count] = await queryRows<{ n: string }>(rt.clickhouse, `SELECT toString(count()) AS n FROM ${rt.tables.swaps} FINAL`)
    expect(count!.n).toBe('1500')
  })
})
