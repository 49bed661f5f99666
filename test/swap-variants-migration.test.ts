import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { swapVariants } from '../shared/storage/migrations/013_swap_variants.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { swapLocationsDdl, swapVersionsDdl } from '../shared/storage/schema/swaps-schema.js'
import { addressFor, hashFor, insertSwaps, swapRowValues, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Migration 13 keys swap_locations by variant, so a merge keeps every wallet and token
 * pair a version was delivered with, and a re-delivery at the same time retracts the
 * replaced variant from the wallet and token paths. On the earlier key a merge kept one
 * row per time, and the replaced wallet went on listing the swap.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 6, 1)
const [ann, ben, usdc, weth] = ['var-ann', 'var-ben', 'var-usdc', 'var-weth'].map(addressFor) as [string, string, string, string]
const swap = (i: number, over: Partial<SwapRowInput> = {}): SwapRowInput => ({
  hash: hashFor(`var-${i}`),
  timestamp: T0 + i * HOUR,
  wallet_address: ann,
  token_sold_address: usdc,
  token_bought_address: weth,
  ...over,
})

let rt: TestRuntime
let api: TestApi

beforeAll(async () => {
  rt = await createTestRuntime()
  api = await startTestApi(rt)
  await insertSwaps(rt, Array.from({ length: 10 }, (_, i) => swap(i)))
}, 60_000)

afterAll(async () => {
  await api?.close()
  await rt?.cleanup()
})

const sql = (query: string) => rt.clickhouse.command({ query })
const locationsName = () => rt.tables.swapLocations.slice(rt.tables.database.length + 1)

async function walletHashes(wallet: string): Promise<string[]> {
  const url = `${api.baseUrl}/swap-transactions?start_time=${T0 - HOUR}&end_time=${T0 + 100 * HOUR}&address=${wallet}&limit=100`
  const { status, body } = await getJson(url, { headers: { 'cache-control': 'no-cache' } })
  expect(status).toBe(200)
  return (body.result as Array<{ hash: string }>).map((s) => s.hash)
}

/** The distinct variants the locations list (a copy may hold a row twice; it collapses as any re-delivery does). */
async function locations(): Promise<number> {
  const [row] = await queryRows<{ n: string }>(
    rt.clickhouse,
    `SELECT count() AS n FROM (SELECT DISTINCT hash, chain_id, timestamp, wallet_address, token_sold_address, token_bought_address FROM ${rt.tables.swapLocations})`,
  )
  return Number(row!.n)
}

async function sortingKey(): Promise<string> {
  const [row] = await queryRows<{ k: string }>(rt.clickhouse, 'SELECT sorting_key AS k FROM system.tables WHERE database = {db:String} AND name = {name:String}', {
    db: rt.tables.database,
    name: locationsName(),
  })
  return row!.k
}

/** swap_locations keyed as before migration 13, with its feed. */
async function toEarlierKey(): Promise<void> {
  const t = rt.tables
  await sql(`DROP VIEW IF EXISTS ${t.database}.mv_swap_versions`)
  await sql(`RENAME TABLE ${t.swapLocations} TO ${t.swapLocations}_copy`)
  await sql(swapLocationsDdl(t.swapLocations).replace(/ORDER BY \([^)]*\)/, 'ORDER BY (hash, chain_id, timestamp)'))
  await sql(`INSERT INTO ${t.swapLocations} SELECT * FROM ${t.swapLocations}_copy`)
  await sql(`DROP TABLE ${t.swapLocations}_copy`)
  for (const query of swapVersionsDdl(t)) await sql(query)
}

/**
 * Re-delivers swap i as ben's at the same time, as a crash between the two steps of the
 * insert leaves it with a merge meanwhile: the new location stored and merged with the
 * old ones before the second step (and its retraction lookup) runs.
 */
async function changeWalletAfterMerge(i: number): Promise<void> {
  const changed = swap(i, { wallet_address: ben })
  await rt.clickhouse.insert({ table: rt.tables.swapVersionsIncoming, values: swapRowValues([changed]), format: 'JSONEachRow' })
  await sql(`OPTIMIZE TABLE ${rt.tables.swapLocations} FINAL`)
  await insertSwaps(rt, [changed])
}

describe('migration 13: every variant of a swap version kept in swap_locations', () => {
  it('on the earlier key a merge loses the replaced variant: its wallet goes on listing the swap', async () => {
    await toEarlierKey()
    expect(await sortingKey()).toBe('hash, chain_id, timestamp')
    await changeWalletAfterMerge(0)
    expect(await walletHashes(ben)).toEqual([swap(0).hash])
    expect(await walletHashes(ann)).toContain(swap(0).hash) // the gap this migration closes
  })

  it('re-keys the locations, keeping every row; a merge no longer loses a variant', async () => {
    const before = await locations()
    await swapVariants.run!(rt.clickhouse, rt.tables)
    await swapVariants.run!(rt.clickhouse, rt.tables) // and again: nothing left to do
    expect(await sortingKey()).toContain('wallet_address')
    expect(await locations()).toBe(before)
    const tables = await queryRows<{ name: string }>(rt.clickhouse, 'SELECT name FROM system.tables WHERE database = {db:String} AND startsWith(name, {prefix:String})', {
      db: rt.tables.database,
      prefix: locationsName(),
    })
    expect(tables.map((x) => x.name)).toEqual([locationsName()])

    await changeWalletAfterMerge(5)
    expect(await walletHashes(ben)).toEqual([swap(5).hash, swap(0).hash])
    expect(await walletHashes(ann)).not.toContain(swap(5).hash)
    // its statements re-run on the current layout without error
    for (const query of swapVariants.statements(rt.tables)) await sql(query)
    await changeWalletAfterMerge(6)
    expect(await walletHashes(ann)).not.toContain(swap(6).hash)
  })

  it('finishes after a crash past the exchange: the feed re-created, late rows of the old table copied, the old table dropped', async () => {
    const t = rt.tables
    const previous = `${t.swapLocations}_previous`
    await sql(`DROP VIEW ${t.database}.mv_swap_versions`)
    await sql(swapLocationsDdl(previous).replace(/ORDER BY \([^)]*\)/, 'ORDER BY (hash, chain_id, timestamp)'))
    await sql(`INSERT INTO ${previous} SELECT * FROM ${t.swapLocations}`)
    const straggler = swap(9, { hash: hashFor('var-straggler') })
    await rt.clickhouse.insert({
      table: previous,
      values: [{ hash: straggler.hash, chain_id: 1, timestamp: T0 + 9 * HOUR, wallet_address: ann, token_sold_address: usdc, token_bought_address: weth, ingested_at: Date.now() }],
      format: 'JSONEachRow',
    })
    const before = await locations()

    await swapVariants.run!(rt.clickhouse, t)

    expect(await locations()).toBe(before + 1)
    const [gone] = await queryRows<{ n: string }>(rt.clickhouse, 'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}', {
      db: t.database,
      name: `${locationsName()}_previous`,
    })
    expect(Number(gone!.n)).toBe(0)
    await changeWalletAfterMerge(7)
    expect(await walletHashes(ann)).not.toContain(swap(7).hash)
  })
})
