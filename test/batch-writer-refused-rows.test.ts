import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchWriter, RowsRejectedError } from '../ingest/pipeline/batch-writer.js'
import { isDataError } from '../ingest/pipeline/insert-errors.js'
import { insertFormatted } from '../shared/storage/clickhouse.js'
import { createLogger } from '../shared/platform/logger.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Rows ClickHouse itself refuses (the validator let them through): the embedded raw insert
 * reports them as the client would (a ClickHouseError whose type names a data error), so
 * the batch writer retries each batch alone, stores the good batch beside the bad one, and
 * fails only the bad one, as refused (the worker then fails its job without retrying).
 */
describe('rows ClickHouse refuses', () => {
  let rt: TestRuntime
  let table: string

  beforeAll(async () => {
    rt = await createTestRuntime()
    table = `${rt.tables.database}.refusal_probe`
    await rt.clickhouse.command({ query: `CREATE TABLE ${table} (n UInt32, s String) ENGINE = MergeTree ORDER BY n` })
  })
  afterAll(() => rt?.cleanup())

  const stored = async () => (await queryRows<{ n: number; s: string }>(rt.clickhouse, `SELECT n, s FROM ${table} ORDER BY n`)).map((r) => [Number(r.n), r.s])

  it('an unparsable line is a data error and stores nothing of its insert', async () => {
    const err: unknown = await insertFormatted(rt.clickhouse, { table, columns: ['n', 's'], texts: ['[1,"a"]\n', '["not a number","b"]\n'] }).then(
      () => null,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(Error)
    expect(isDataError(err)).toBe(true)
    expect(await stored()).toEqual([])
  })

  it('texts of several batches are one body; an empty one inserts nothing', async () => {
    await insertFormatted(rt.clickhouse, { table, columns: ['n', 's'], texts: ['[10,"x"]\n[11,"y"]\n', '[12,"z"]\n'] })
    await insertFormatted(rt.clickhouse, { table, columns: ['n', 's'], texts: [''] })
    expect(await stored()).toEqual([
      [10, 'x'],
      [11, 'y'],
      [12, 'z'],
    ])
    await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
  })

  it('the batch writer stores the good batch and refuses the bad one written beside it', async () => {
    const writer = new BatchWriter(rt.clickhouse, { flushRows: 1_000, flushMs: 20 }, createLogger('silent'))
    const good = writer.write([{ table, encoded: { columns: ['n', 's'], text: '[2,"good"]\n', count: 1 } }])
    const bad = writer.write([{ table, encoded: { columns: ['n', 's'], text: '[3,"bad"]\n[{},"bad"]\n', count: 2 } }])
    const [goodOutcome, badOutcome] = await Promise.allSettled([good, bad])
    expect(goodOutcome.status).toBe('fulfilled')
    expect(badOutcome.status).toBe('rejected')
    expect((badOutcome as PromiseRejectedResult).reason).toBeInstanceOf(RowsRejectedError)
    expect(await stored()).toEqual([[2, 'good']])
  })
})
