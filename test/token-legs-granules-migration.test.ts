import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenLegsGranules } from '../shared/storage/migrations/012_token_legs_granules.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { swapCandleMarksViewDdl, SWAP_CANDLE_MARKS_VIEW } from '../shared/storage/schema/candles-schema.js'
import { TOKEN_LEGS_VIEW, tokenLegsDdl, tokenLegsViewDdl } from '../shared/storage/schema/swaps-schema.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Migration 12 rebuilds the token path with 1,024-row granules. A store of the earlier
 * layout (8,192) keeps every leg, its views write to the new table afterwards (rows and
 * candle marks), a crash after the exchange is finished by the re-run, and a store already
 * at the new granularity is left alone.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 4, 1)
const [usdc, weth] = [addressFor('legs-usdc'), addressFor('legs-weth')]
const rows: SwapRowInput[] = Array.from({ length: 40 }, (_, i) => ({
  hash: hashFor(`legs-${i}`),
  timestamp: T0 + i * HOUR,
  token_sold_address: i % 2 === 0 ? usdc : weth,
  token_bought_address: i % 2 === 0 ? weth : usdc,
}))

let rt: TestRuntime
let api: TestApi

beforeAll(async () => {
  rt = await createTestRuntime()
  api = await startTestApi(rt)
  await insertSwaps(rt, rows)
}, 60_000)

afterAll(async () => {
  await api?.close()
  await rt?.cleanup()
})

const sql = (query: string) => rt.clickhouse.command({ query })
const legsTable = () => rt.tables.swapLegs.slice(rt.tables.database.length + 1)

async function tablesNamed(prefix: string): Promise<Array<{ name: string; engine_full: string }>> {
  return queryRows(rt.clickhouse, 'SELECT name, engine_full FROM system.tables WHERE database = {db:String} AND startsWith(name, {prefix:String}) ORDER BY name', {
    db: rt.tables.database,
    prefix,
  })
}

async function legCount(): Promise<number> {
  const [row] = await queryRows<{ n: string }>(rt.clickhouse, `SELECT count() AS n FROM ${rt.tables.swapLegs} FINAL WHERE NOT is_deleted`)
  return Number(row!.n)
}

async function tokenPage(token: string): Promise<{ hashes: string[]; total: number }> {
  const url = `${api.baseUrl}/swap-transactions?start_time=${T0 - HOUR}&end_time=${T0 + 100 * HOUR}&token_id=${token}&limit=100`
  const { status, body } = await getJson(url, { headers: { 'cache-control': 'no-cache' } })
  expect(status).toBe(200)
  return { hashes: (body.result as Array<{ hash: string }>).map((s) => s.hash), total: body.pagination.total as number }
}

/** The earlier layout: the token path at 8,192-row granules, with its two views. */
async function toEarlierLayout(): Promise<void> {
  const t = rt.tables
  await sql(`DROP VIEW IF EXISTS ${t.database}.${TOKEN_LEGS_VIEW}`)
  await sql(`DROP VIEW IF EXISTS ${t.database}.${SWAP_CANDLE_MARKS_VIEW}`)
  await sql(`RENAME TABLE ${t.swapLegs} TO ${t.swapLegs}_copy`)
  await sql(tokenLegsDdl(t.swapLegs).replace(/index_granularity = \d+/, 'index_granularity = 8192'))
  await sql(`INSERT INTO ${t.swapLegs} SELECT * FROM ${t.swapLegs}_copy`)
  await sql(`DROP TABLE ${t.swapLegs}_copy`)
  await sql(tokenLegsViewDdl(t))
  await sql(swapCandleMarksViewDdl(t))
}

describe('migration 12: the token path at 1,024-row granules', () => {
  it('moves a store of the earlier layout: every leg kept, the views write to the new table', async () => {
    await toEarlierLayout()
    expect((await tablesNamed(legsTable()))[0]!.engine_full).toContain('index_granularity = 8192')
    const before = { usdc: await tokenPage(usdc), weth: await tokenPage(weth), legs: await legCount() }
    expect(before.usdc.total).toBe(40)

    await tokenLegsGranules.run!(rt.clickhouse, rt.tables)

    const after = await tablesNamed(legsTable())
    expect(after.map((t) => t.name)).toEqual([legsTable()]) // the previous table dropped
    expect(after[0]!.engine_full).toContain('index_granularity = 1024')
    expect({ usdc: await tokenPage(usdc), weth: await tokenPage(weth), legs: await legCount() }).toEqual(before)

    // A swap stored after the migration reaches the new table and marks its candle.
    const late: SwapRowInput = { hash: hashFor('legs-late'), timestamp: T0 + 60 * HOUR, token_sold_address: usdc, token_bought_address: weth }
    await insertSwaps(rt, [late])
    expect((await tokenPage(usdc)).hashes[0]).toBe(late.hash)
    const marks = await queryRows<{ n: string }>(rt.clickhouse, `SELECT count() AS n FROM ${rt.tables.candleMarks} WHERE token = {token:String} AND hour = {hour:UInt32}`, {
      token: usdc,
      hour: (T0 + 60 * HOUR) / HOUR,
    })
    expect(Number(marks[0]!.n)).toBeGreaterThan(0)
    rows.push(late)
  })

  it('finishes after a crash past the exchange: views re-created, late rows of the old table copied, the old table dropped', async () => {
    const t = rt.tables
    const previous = `${t.swapLegs}_previous`
    // As a crash would leave it: the new table in place without its views, the old one
    // beside it holding a leg another process stored during the copy.
    await sql(`DROP VIEW ${t.database}.${TOKEN_LEGS_VIEW}`)
    await sql(`DROP VIEW ${t.database}.${SWAP_CANDLE_MARKS_VIEW}`)
    await sql(tokenLegsDdl(previous).replace(/index_granularity = \d+/, 'index_granularity = 8192'))
    await sql(`INSERT INTO ${previous} SELECT * FROM ${t.swapLegs}`)
    const straggler = hashFor('legs-straggler')
    await rt.clickhouse.insert({
      table: previous,
      values: [{ token_address: weth, timestamp: T0 + 70 * HOUR, hash: straggler, chain_id: 1, ingested_at: Date.now(), is_deleted: 0 }],
      format: 'JSONEachRow',
    })
    const legs = await legCount()

    await tokenLegsGranules.run!(rt.clickhouse, t)
    await tokenLegsGranules.run!(rt.clickhouse, t) // and again: nothing left to do

    expect((await tablesNamed(legsTable())).map((x) => x.name)).toEqual([legsTable()])
    expect(await legCount()).toBe(legs + 1)
    const views = await queryRows<{ name: string }>(rt.clickhouse, "SELECT name FROM system.tables WHERE database = {db:String} AND engine = 'MaterializedView' AND name IN ({names:Array(String)}) ORDER BY name", {
      db: t.database,
      names: [TOKEN_LEGS_VIEW, SWAP_CANDLE_MARKS_VIEW],
    })
    expect(views.map((v) => v.name)).toEqual([SWAP_CANDLE_MARKS_VIEW, TOKEN_LEGS_VIEW])
    const next: SwapRowInput = { hash: hashFor('legs-next'), timestamp: T0 + 61 * HOUR, token_sold_address: weth, token_bought_address: usdc }
    await insertSwaps(rt, [next])
    expect((await tokenPage(weth)).hashes).toContain(next.hash)
  })
})
