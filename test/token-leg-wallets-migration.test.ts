import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenLegWallets } from '../shared/storage/migrations/015_token_leg_wallets.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { swapCandleMarksViewDdl, SWAP_CANDLE_MARKS_VIEW } from '../shared/storage/schema/candles-schema.js'
import { SAME_TIME_LEG_TOMBSTONES_VIEW, sameTimeTombstonesViewDdl, TOKEN_LEG_COLUMNS_BEFORE_WALLET, TOKEN_LEGS_VIEW, tokenLegsDdl, tokenLegsViewDdl } from '../shared/storage/schema/swaps-schema.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Migration 15 gives every leg of the token path its swap's wallet, rebuilding the path from
 * what feeds it. A store of the earlier layout (legs without wallets) keeps exactly its live
 * legs, each now with the wallet swaps_by_time serves for it, through re-deliveries, a move
 * and a same-time re-delivery with another wallet and token; the views write wallets
 * afterwards; a re-run changes nothing.
 */
const HOUR = 3_600_000
const T0 = Date.UTC(2025, 5, 1)
const tokens = [addressFor('lw-a'), addressFor('lw-b'), addressFor('lw-c')]
const wallets = [addressFor('lw-w0'), addressFor('lw-w1'), addressFor('lw-w2')]
const rows: SwapRowInput[] = Array.from({ length: 30 }, (_, i) => ({
  hash: hashFor(`lw-${i}`),
  timestamp: T0 + i * 600_000,
  wallet_address: wallets[i % 3],
  token_sold_address: tokens[i % 3],
  token_bought_address: tokens[(i + 1) % 3],
}))

let rt: TestRuntime
const sql = (query: string) => rt.clickhouse.command({ query })

beforeAll(async () => {
  rt = await createTestRuntime()
  await insertSwaps(rt, rows)
  const later = Date.now() + 1_000
  await insertSwaps(rt, [
    { ...rows[1]!, ingested_at: later }, // the same again
    { ...rows[2]!, timestamp: T0 + 5 * HOUR, ingested_at: later }, // moved to another hour
    { ...rows[3]!, wallet_address: wallets[2], token_bought_address: tokens[2], ingested_at: later }, // same time, another wallet and token
  ])
}, 60_000)

afterAll(async () => {
  await rt?.cleanup()
})

/** The live legs: token, key and wallet. */
async function liveLegs(): Promise<string[]> {
  const legs = await queryRows<{ leg: string }>(
    rt.clickhouse,
    `SELECT concat(token_address, ' ', toString(timestamp), ' ', hash, ' ', wallet_address) AS leg FROM ${rt.tables.swapLegs} FINAL WHERE NOT is_deleted ORDER BY leg`,
  )
  return legs.map((l) => l.leg)
}

/** What the live legs must be: each live swap's tokens, with its wallet. */
async function expectedLegs(): Promise<string[]> {
  const legs = await queryRows<{ leg: string }>(
    rt.clickhouse,
    `SELECT concat(token_address, ' ', toString(timestamp), ' ', hash, ' ', wallet_address) AS leg FROM ${rt.tables.swaps} FINAL
     ARRAY JOIN arrayDistinct([token_sold_address, token_bought_address]) AS token_address ORDER BY leg`,
  )
  return legs.map((l) => l.leg)
}

/** The earlier layout: legs without wallets, and the three views around them as they were. */
async function toEarlierLayout(): Promise<void> {
  const t = rt.tables
  for (const view of [TOKEN_LEGS_VIEW, SAME_TIME_LEG_TOMBSTONES_VIEW, SWAP_CANDLE_MARKS_VIEW]) await sql(`DROP VIEW IF EXISTS ${t.database}.${view}`)
  await sql(`RENAME TABLE ${t.swapLegs} TO ${t.swapLegs}_copy`)
  await sql(tokenLegsDdl(t.swapLegs).replace(",\n      wallet_address String DEFAULT ''", ''))
  await sql(`INSERT INTO ${t.swapLegs} SELECT ${TOKEN_LEG_COLUMNS_BEFORE_WALLET} FROM ${t.swapLegs}_copy`)
  await sql(`DROP TABLE ${t.swapLegs}_copy`)
  await sql(tokenLegsViewDdl(t).replace(', wallet_address FROM', ' FROM'))
  await sql(sameTimeTombstonesViewDdl(t)[1]!)
  await sql(swapCandleMarksViewDdl(t))
}

describe('migration 15: each leg of the token path carries its swap\'s wallet', () => {
  it('moves a store of the earlier layout: the same live legs, each with its swap\'s wallet', async () => {
    const live = await expectedLegs()
    expect(live).toHaveLength(60)
    await toEarlierLayout()
    const columns = await queryRows<{ name: string }>(rt.clickhouse, 'SELECT name FROM system.columns WHERE database = {db:String} AND table = {table:String}', {
      db: rt.tables.database,
      table: rt.tables.swapLegs.slice(rt.tables.database.length + 1),
    })
    expect(columns.map((c) => c.name)).not.toContain('wallet_address')

    await tokenLegWallets.run!(rt.clickhouse, rt.tables)
    expect(await liveLegs()).toEqual(live)
    await tokenLegWallets.run!(rt.clickhouse, rt.tables) // a re-run (after a crash) rebuilds the same
    expect(await liveLegs()).toEqual(live)
    const left = await queryRows<{ name: string }>(rt.clickhouse, 'SELECT name FROM system.tables WHERE database = {db:String} AND name LIKE {like:String}', {
      db: rt.tables.database,
      like: '%_next',
    })
    expect(left).toEqual([])
  })

  it('afterwards the views write each leg with its wallet, and a same-time re-delivery with another wallet moves its legs', async () => {
    const late: SwapRowInput = { hash: hashFor('lw-late'), timestamp: T0 + 7 * HOUR, wallet_address: wallets[1], token_sold_address: tokens[0], token_bought_address: tokens[1] }
    await insertSwaps(rt, [late])
    await insertSwaps(rt, [{ ...rows[4]!, wallet_address: wallets[0], ingested_at: Date.now() + 5_000 }])
    expect(await liveLegs()).toEqual(await expectedLegs())
    expect((await liveLegs()).filter((l) => l.includes(late.hash))).toHaveLength(2)
  })
})
