import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DURABLE_INSERT_SETTINGS } from '../shared/storage/insert-durability.js'
import { migrate, appliedVersions, StoreTooOldError } from '../shared/storage/migrate.js'
import { baseline, BASELINE_VERSION } from '../shared/storage/migrations/026_baseline.js'
import { migrations } from '../shared/storage/migrations/index.js'
import { bootstrapDdl } from '../shared/storage/migrations/migration-ddl.js'
import type { Migration } from '../shared/storage/migrations/migration.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { PLAIN_WALLET_STATS_AMOUNTS } from '../shared/storage/schema/smart-money-schema.js'
import { readStoreId } from '../shared/storage/store-identity.js'
import { tablesFor, type Tables } from '../shared/storage/tables.js'
import { addressFor, hashFor, insertHoldings, insertSwaps, insertTokens } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * What every table and view is, as system.tables states it (create_table_query, the
 * database named DB). SCHEMA_AT_26: a store built by the step-by-step migrations 1–26 that
 * the baseline replaced; the adoption test builds a store of the earlier code from it.
 * SCHEMA: a store of this code, new or upgraded. A schema change is a migration after the
 * baseline that brings a store at 26 to the modules' schema, and this file written again
 * from a new store. (So is a chDB upgrade that formats the statements differently.)
 */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, string>
const SCHEMA_AT_26 = fixture('schema-at-26.json')
const SCHEMA = fixture('schema.json')

/** The names the earlier migrations recorded, versions 1 to 26. */
const EARLIER_MIGRATIONS = [
  'core_tables', 'time_ordered_swaps', 'holdings_by_token', 'stored_candles', 'store_identity', 'dead_letter_lines', 'holdings_by_wallet',
  'wallet_stats', 'swap_versions_first', 'wallet_positions', 'wallet_rows', 'token_legs_granules', 'swap_variants', 'tracked_wallets',
  'token_leg_wallets', 'wallet_stats_marks', 'wallet_sums_on_positions', 'open_positions_when_read', 'swaps_ingested_at_index',
  'marks_from_swaps', 'binary_position_keys', 'run_swaps_in_memory', 'plain_wallet_stats_amounts', 'wallet_stats_seen_swaps',
  'seen_swaps_kept_an_hour', 'seen_swap_ids',
]

async function schemaOf(rt: TestRuntime, database: string): Promise<Record<string, string>> {
  const rows = await queryRows<{ name: string; create_table_query: string }>(
    rt.clickhouse,
    "SELECT name, create_table_query FROM system.tables WHERE database = {db:String} AND name != 'schema_migrations' ORDER BY name",
    { db: database },
  )
  // Without the insert durability settings, which every start sets or resets (insert-durability.ts).
  const durability = new RegExp(`, (${DURABLE_INSERT_SETTINGS.join('|')}) = \\d+`, 'g')
  return Object.fromEntries(rows.map((r) => [r.name, r.create_table_query.replaceAll(`${database}.`, 'DB.').replace(durability, '')]))
}

/** Each table's identity and last metadata change: a table dropped and created again, or altered, shows here. */
async function tableStates(rt: TestRuntime, database: string) {
  return queryRows(rt.clickhouse, 'SELECT name, uuid, metadata_modification_time, create_table_query FROM system.tables WHERE database = {db:String} ORDER BY name', {
    db: database,
  })
}

/** The statements that create a recorded schema in `database`: tables, then the views that write into them. */
function statementsOf(schema: Record<string, string>, database: string): string[] {
  const creates = Object.values(schema).map((create) => create.replaceAll('DB.', `${database}.`))
  const isView = (create: string) => create.startsWith('CREATE MATERIALIZED VIEW')
  return [`CREATE DATABASE IF NOT EXISTS ${database}`, ...creates.filter((c) => !isView(c)), ...creates.filter(isView)]
}

async function migrationRows(rt: TestRuntime, tables: Tables) {
  return queryRows(rt.clickhouse, `SELECT version, name, toUnixTimestamp64Milli(applied_at) AS applied_at FROM ${tables.migrations} ORDER BY version, applied_at`)
}

/** The migrations table of a store the earlier code brought to version 26: one row per migration, 1 to 26. */
async function recordEarlierMigrations(rt: TestRuntime, tables: Tables, upTo: number): Promise<void> {
  for (const query of bootstrapDdl(tables, { cluster: null })) await rt.clickhouse.command({ query })
  const appliedAt = Date.UTC(2026, 9, 1)
  await rt.clickhouse.insert({
    table: tables.migrations,
    values: EARLIER_MIGRATIONS.slice(0, upTo).map((name, i) => ({ version: i + 1, name, applied_at: appliedAt + i * 1_000 })),
    format: 'JSONEachRow',
  })
}

describe('schema migrations', () => {
  let rt: TestRuntime
  const scratch: string[] = []
  /** A database of its own for one test, dropped at the end. */
  const scratchTables = (name: string) => {
    const tables = tablesFor(`${rt.tables.database}_${name}`)
    scratch.push(tables.database)
    return tables
  }
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    for (const database of scratch) await rt?.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` })
    await rt?.cleanup()
  })

  it('a new store gets the baseline, then records every later migration, which changes nothing there', async () => {
    expect(migrations.map((m) => m.version)).toEqual([BASELINE_VERSION, 27, 28])
    expect(BASELINE_VERSION).toBe(26)
    expect([...(await appliedVersions(rt.clickhouse, rt.tables))].sort()).toEqual([26, 27, 28])
    const [row] = await migrationRows(rt, rt.tables)
    expect(row).toMatchObject({ version: 26, name: 'baseline' })
    expect(await readStoreId(rt.clickhouse, rt.tables)).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a restart applies nothing and changes nothing', async () => {
    const before = { rows: await migrationRows(rt, rt.tables), tables: await tableStates(rt, rt.tables.database), id: await readStoreId(rt.clickhouse, rt.tables) }
    expect(await migrate(rt.clickhouse, rt.tables)).toEqual([])
    expect(await migrate(rt.clickhouse, rt.tables)).toEqual([])
    expect({ rows: await migrationRows(rt, rt.tables), tables: await tableStates(rt, rt.tables.database), id: await readStoreId(rt.clickhouse, rt.tables) }).toEqual(before)
  })

  it('creates exactly the recorded schema: every table and view, column, codec, key, index, TTL and setting', async () => {
    const schema = await schemaOf(rt, rt.tables.database)
    expect(Object.keys(schema)).toEqual(Object.keys(SCHEMA).sort())
    for (const [name, create] of Object.entries(SCHEMA)) expect(schema[name], name).toBe(create)
    // None of the layouts moved away from: the earlier migrations', and the change-tracking ones the feed replaced.
    for (const gone of ['swaps', 'swaps_by_wallet', 'wallet_positions', 'wallet_stats_seen_swaps', 'wallet_stats_seen_swap_ids', 'candle_marks', 'candle_refresh_state']) {
      expect(schema).not.toHaveProperty(gone)
    }
    expect(Object.keys(schema).filter((n) => n.startsWith('mv_'))).toEqual([
      'mv_changes_holdings', 'mv_changes_prices', 'mv_changes_swaps', 'mv_changes_tokens', 'mv_changes_wallet_tombstones',
      'mv_holdings_by_wallet', 'mv_move_tombstones', 'mv_same_time_leg_tombstones', 'mv_same_time_wallet_tombstones', 'mv_swap_legs', 'mv_swap_moves', 'mv_swap_rows', 'mv_swap_rows_by_wallet', 'mv_swap_versions',
    ])
  })

  it("stores wallet_stats' USD amounts plain and its other columns as ClickHouse's default", async () => {
    const columns = await queryRows<{ name: string; compression_codec: string }>(
      rt.clickhouse,
      "SELECT name, compression_codec FROM system.columns WHERE database = {db:String} AND table = 'wallet_stats' ORDER BY name",
      { db: rt.tables.database },
    )
    const codecs = Object.fromEntries(columns.map((c) => [c.name, c.compression_codec]))
    for (const amount of PLAIN_WALLET_STATS_AMOUNTS) expect(codecs[amount]).toBe('CODEC(NONE)')
    expect(codecs.trades).toBe('')
    expect(codecs.wallet_address).toBe('')
  })

  it("keys the holdings by token, then wallet: one token's holdings are read through the primary key", async () => {
    const [table] = await queryRows<{ sorting_key: string }>(rt.clickhouse, "SELECT sorting_key FROM system.tables WHERE database = {db:String} AND name = 'holdings'", {
      db: rt.tables.database,
    })
    expect(table!.sorting_key).toBe('contract_address, wallet_address')
    await insertHoldings(rt, Array.from({ length: 30 }, (_, i) => ({ wallet_address: addressFor(`w${i % 6}`), contract_address: addressFor(`t${i % 5}`) })))
    const plan = await queryRows<{ explain: string }>(rt.clickhouse, `EXPLAIN indexes = 1 SELECT * FROM ${rt.tables.holdings} FINAL WHERE contract_address = {c:String}`, {
      c: addressFor('t1'),
    })
    // A prefix of the key: a binary search over the marks (a later key column would need the generic exclusion search).
    expect(plan.map((r) => r.explain).join('\n')).toMatch(/PrimaryKey[\s\S]*Keys:[\s\S]*contract_address[\s\S]*Search Algorithm: binary search/)
  })

  it('upgrades a store the earlier migrations brought to version 26: the later migrations alone, its rows kept, the recorded schema after', async () => {
    const tables = scratchTables('adopted')
    const store = { ...rt, tables }
    // As the earlier code left it: its schema, its id, and versions 1 to 26.
    await recordEarlierMigrations(rt, tables, 26)
    for (const query of statementsOf(SCHEMA_AT_26, tables.database)) await rt.clickhouse.command({ query })
    await rt.clickhouse.insert({ table: `${tables.database}.store_identity`, values: [{ id: 'store-made-by-the-earlier-code' }], format: 'JSONEachRow' })
    await insertTokens(store, [{ contract_address: addressFor('adopted-token'), symbol: 'ADO' }])
    await insertSwaps(store, [{ hash: hashFor('adopted-swap'), timestamp: Date.UTC(2026, 9, 2), token_sold_address: addressFor('adopted-token') }])
    await insertHoldings(store, [{ wallet_address: addressFor('adopted-wallet'), contract_address: addressFor('adopted-token') }])
    const counts = () =>
      queryRows(rt.clickhouse, `SELECT (SELECT count() FROM ${tables.tokens}) AS tokens, (SELECT count() FROM ${tables.swaps}) AS swaps,
        (SELECT count() FROM ${tables.swapLegs}) AS legs, (SELECT count() FROM ${tables.holdings}) AS holdings, (SELECT count() FROM ${tables.holdingsByWallet}) AS by_wallet`)
    const before = await counts()
    expect(before).toEqual([{ tokens: '1', swaps: '1', legs: '2', holdings: '1', by_wallet: '1' }])

    expect(await migrate(rt.clickhouse, tables)).toEqual([27, 28])
    expect(await migrate(rt.clickhouse, tables)).toEqual([])

    expect(await counts()).toEqual(before)
    expect(await migrationRows(rt, tables)).toHaveLength(28)
    expect(await readStoreId(rt.clickhouse, tables)).toBe('store-made-by-the-earlier-code')
    expect(await schemaOf(rt, tables.database)).toEqual(SCHEMA)
    // Its candles are re-aggregated once: a token-wide change for every token with swaps (its two legs' tokens).
    const changed = await queryRows<{ token: string }>(rt.clickhouse, `SELECT tokens[1] AS token FROM ${tables.changes} WHERE kind = 'token' ORDER BY token`)
    expect(changed.map((r) => r.token)).toContain(addressFor('adopted-token'))
  })

  it('refuses a store older than the baseline before changing anything, saying how to rebuild it', async () => {
    const tables = scratchTables('older')
    await recordEarlierMigrations(rt, tables, 12)
    const before = { rows: await migrationRows(rt, tables), tables: await tableStates(rt, tables.database) }

    const refusal = await migrate(rt.clickhouse, tables).catch((err: unknown) => err)

    expect(refusal).toBeInstanceOf(StoreTooOldError)
    const message = (refusal as Error).message
    expect(message).toContain(`the store at ${tables.database} is at schema version 12, older than the baseline (26)`)
    expect(message).toContain('this version cannot upgrade it')
    expect(message).toContain(`DROP DATABASE ${tables.database}`)
    expect(message).toMatch(/CLICKHOUSE_DATABASE.*CLICKHOUSE_PATH/)
    expect(message).toContain('re-run the backfill')
    expect({ rows: await migrationRows(rt, tables), tables: await tableStates(rt, tables.database) }).toEqual(before)
    expect(before.tables).toHaveLength(1) // the migrations table alone
  })

  it('refuses to start on an older store: opening the runtime fails with the refusal', async () => {
    const tables = scratchTables('older_start')
    await recordEarlierMigrations(rt, tables, 25)
    await expect(createTestRuntime({ CLICKHOUSE_DATABASE: tables.database })).rejects.toThrow(/is at schema version 25, older than the baseline \(26\)/)
  })

  it('takes a store newer than this code as it is: versions it does not know are left alone', async () => {
    const tables = scratchTables('newer')
    expect(await migrate(rt.clickhouse, tables)).toEqual([26, 27, 28])
    await rt.clickhouse.insert({ table: tables.migrations, values: [{ version: 40, name: 'from_a_later_release', applied_at: Date.now() }], format: 'JSONEachRow' })
    const before = await tableStates(rt, tables.database)
    expect(await migrate(rt.clickhouse, tables)).toEqual([])
    expect(await tableStates(rt, tables.database)).toEqual(before)
  })

  it('two processes creating the same new store at once both start, with one schema and one store id', async () => {
    const tables = scratchTables('together')
    const [a, b] = await Promise.all([
      createTestRuntime({ CLICKHOUSE_DATABASE: tables.database }),
      createTestRuntime({ CLICKHOUSE_DATABASE: tables.database }),
    ])
    try {
      expect([...(await appliedVersions(a.clickhouse, tables))].sort()).toEqual([26, 27, 28])
      expect(await schemaOf(rt, tables.database)).toEqual(SCHEMA)
      expect(await readStoreId(a.clickhouse, tables)).toBe(await readStoreId(b.clickhouse, tables))
    } finally {
      await a.cleanup()
      await b.cleanup()
    }
  })
})
