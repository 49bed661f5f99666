import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coreTables } from '../shared/storage/migrations/001_core_tables.js'
import {
  HOLDINGS_SORTING_KEY,
  holdingsByToken,
  holdingsStagingTable,
  holdingsTableDdl,
} from '../shared/storage/migrations/003_holdings_by_token.js'
import { addressFor, insertHoldings } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const OLD_KEY = 'wallet_address, contract_address'

describe('migration 3: holdings ordered by token', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  async function rows<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
    const rs = await rt.clickhouse.query({ query, query_params: params, format: 'JSONEachRow' })
    return rs.json<T>()
  }
  const command = (query: string) => rt.clickhouse.command({ query })
  const keyOf = async (table: string) =>
    (await rows<{ sorting_key: string }>('SELECT sorting_key FROM system.tables WHERE database = {db:String} AND name = {name:String}', {
      db: rt.tables.database,
      name: table.slice(rt.tables.database.length + 1),
    }))[0]?.sorting_key ?? null
  /** The holdings as served: the latest as_of of each (wallet, token). */
  const served = () =>
    rows(`SELECT wallet_address, contract_address, toString(balance_raw) AS b, value_usd, as_of
          FROM ${rt.tables.holdings} FINAL ORDER BY wallet_address, contract_address`)

  /** Holdings in the first layout, with re-deliveries (newer and older) in separate parts. */
  async function oldLayoutWithRows(): Promise<unknown[]> {
    await command(`DROP TABLE IF EXISTS ${rt.tables.holdings}`)
    await command(`DROP TABLE IF EXISTS ${holdingsStagingTable(rt.tables)}`)
    const ddl = coreTables.statements(rt.tables).find((s) => s.includes(rt.tables.holdings))!
    await command(ddl)
    expect(await keyOf(rt.tables.holdings)).toBe(OLD_KEY)
    const base = Date.UTC(2026, 10, 20)
    const holdings = Array.from({ length: 30 }, (_, i) => ({
      wallet_address: addressFor(`w${i % 6}`),
      contract_address: addressFor(`t${i % 5}`),
      balance_raw: String(2n ** 200n + BigInt(i)),
      value_usd: i % 7 === 0 ? null : i * 1.5,
      as_of: base,
    }))
    await insertHoldings(rt, holdings)
    await insertHoldings(rt, holdings.slice(0, 10).map((h) => ({ ...h, balance_raw: '7', as_of: base + 3_600_000 })))
    await insertHoldings(rt, holdings.slice(10, 20).map((h) => ({ ...h, balance_raw: '1', as_of: base - 3_600_000 })))
    return served()
  }

  it('at start-up: the holdings table is keyed by token, then wallet, and nothing is left behind', async () => {
    expect(await keyOf(rt.tables.holdings)).toBe(HOLDINGS_SORTING_KEY)
    expect(await keyOf(holdingsStagingTable(rt.tables))).toBeNull()
  })

  it('moves every holding of an existing store, keeping the latest as_of of each', async () => {
    const before = await oldLayoutWithRows()
    expect(before).toHaveLength(30)
    await holdingsByToken.run!(rt.clickhouse, rt.tables)
    expect(await keyOf(rt.tables.holdings)).toBe(HOLDINGS_SORTING_KEY)
    expect(await keyOf(holdingsStagingTable(rt.tables))).toBeNull()
    expect(await served()).toEqual(before)
    // A later delivery still replaces, an older one still loses.
    const [first] = before as Array<{ wallet_address: string; contract_address: string }>
    await insertHoldings(rt, [{ ...first!, balance_raw: '99', as_of: Date.UTC(2027, 0, 1) }])
    await insertHoldings(rt, [{ ...first!, balance_raw: '98', as_of: Date.UTC(2020, 0, 1) }])
    const [latest] = await rows<{ b: string }>(
      `SELECT toString(balance_raw) AS b FROM ${rt.tables.holdings} FINAL WHERE contract_address = {c:String} AND wallet_address = {w:String}`,
      { c: first!.contract_address, w: first!.wallet_address },
    )
    expect(latest!.b).toBe('99')
  })

  it('re-run after a crash before the exchange: starts the copy afresh', async () => {
    const before = await oldLayoutWithRows()
    // A half-filled staging table left by the crash.
    const staging = holdingsStagingTable(rt.tables)
    await command(holdingsTableDdl(staging))
    await command(`INSERT INTO ${staging} SELECT * FROM ${rt.tables.holdings} LIMIT 7`)
    await holdingsByToken.run!(rt.clickhouse, rt.tables)
    expect(await keyOf(rt.tables.holdings)).toBe(HOLDINGS_SORTING_KEY)
    expect(await keyOf(staging)).toBeNull()
    expect(await served()).toEqual(before)
  })

  it('re-run after a crash after the exchange: rows written to the old table meanwhile are kept', async () => {
    await oldLayoutWithRows()
    const staging = holdingsStagingTable(rt.tables)
    await command(holdingsTableDdl(staging))
    await command(`INSERT INTO ${staging} SELECT * FROM ${rt.tables.holdings}`)
    await command(`EXCHANGE TABLES ${rt.tables.holdings} AND ${staging}`)
    // A holding that reached the old table during the copy (it now sits in staging).
    const late = { wallet_address: addressFor('late-wallet'), contract_address: addressFor('t1'), balance_raw: '5', value_usd: 5, as_of: Date.UTC(2026, 10, 21) }
    await rt.clickhouse.insert({ table: staging, values: [late], format: 'JSONEachRow' })
    await holdingsByToken.run!(rt.clickhouse, rt.tables)
    expect(await keyOf(rt.tables.holdings)).toBe(HOLDINGS_SORTING_KEY)
    expect(await keyOf(staging)).toBeNull()
    const all = (await served()) as Array<{ wallet_address: string }>
    expect(all).toHaveLength(31)
    expect(all.some((h) => h.wallet_address === late.wallet_address)).toBe(true)
  })

  it('re-run once done: changes nothing', async () => {
    const before = await served()
    await holdingsByToken.run!(rt.clickhouse, rt.tables)
    expect(await served()).toEqual(before)
    expect(await keyOf(rt.tables.holdings)).toBe(HOLDINGS_SORTING_KEY)
  })

  it('one token’s holdings are read through the primary key', async () => {
    const rs = await rt.clickhouse.query({
      query: `EXPLAIN indexes = 1 SELECT * FROM ${rt.tables.holdings} FINAL WHERE contract_address = {c:String}`,
      query_params: { c: addressFor('t1') },
      format: 'TabSeparatedRaw',
    })
    const plan = await rs.text()
    // A prefix of the key: a binary search over the marks (a later key column would need the generic exclusion search).
    expect(plan).toMatch(/PrimaryKey[\s\S]*Keys:[\s\S]*contract_address[\s\S]*Search Algorithm: binary search/)
  })
})
