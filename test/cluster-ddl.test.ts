import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../shared/platform/config.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { baseline } from '../shared/storage/migrations/026_baseline.js'
import { migrations } from '../shared/storage/migrations/index.js'
import { bootstrapDdl, migrationDdl, runsDataStep } from '../shared/storage/migrations/migration-ddl.js'
import { clusterDdl, ClusterDdlError, KEEPER_PATH } from '../shared/storage/schema/cluster-ddl.js'
import { tablesFor } from '../shared/storage/tables.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * The cluster variant of the schema (CLICKHOUSE_CLUSTER), generated for every migration
 * (the baseline and any after it) and checked statement by statement; ClickHouse's own parser (formatQuery) reads each one,
 * and each sharding key is evaluated against the table it shards. No cluster runs here
 * (no Keeper, no second server): what a real cluster does with the DDL is not tested.
 * And without a cluster the DDL is exactly what it was before the variant existed.
 */
const CLUSTER = 'smart_money_cluster'
const t = tablesFor('smart_money')
const layout = { cluster: CLUSTER }

/** What duplicates of each table share, hence its sharding key. */
const EXPECTED_SHARDING_KEYS: Record<string, string> = {
  schema_migrations: 'version',
  tokens: 'cityHash64(contract_address)',
  swaps_incoming: 'cityHash64(hash)',
  swap_versions_incoming: 'cityHash64(hash)',
  swaps_by_time: 'cityHash64(hash)',
  swap_locations: 'cityHash64(hash)',
  swap_rows_by_wallet: 'cityHash64(hash)',
  swap_legs_by_token: 'cityHash64(hash)',
  swap_moves: 'cityHash64(hash)',
  holdings: 'cityHash64(wallet_address, contract_address)',
  holdings_by_wallet: 'cityHash64(wallet_address, contract_address)',
  prices: 'cityHash64(contract_address)',
  candles_1h: 'cityHash64(token)',
  token_wallet_hour_flows: 'cityHash64(token)',
  changes: 'cityHash64(hash)',
  change_positions: 'cityHash64(consumer)',
  dead_letters: 'cityHash64(id)',
  store_identity: 'cityHash64(id)',
  wallet_stats: 'cityHash64(wallet_address)',
  wallet_stats_runs: 'cityHash64(computed_at)',
  wallet_token_positions: 'cityHash64(wallet_address)',
  wallet_run_swaps: 'cityHash64(wallet_address)',
  wallet_stats_marks: 'cityHash64(token)',
  tracked_wallets: 'cityHash64(wallet_address)',
  tracked_wallet_sets: 'generation',
  alert_rules: 'cityHash64(id)',
  alert_firings: 'cityHash64(id)',
}

interface LocalTable {
  name: string
  engine: string
  engineArgs: string
  /** Everything after the engine clause (ORDER BY, PARTITION BY, SETTINGS, TTL). */
  rest: string
}
interface DistributedTable {
  name: string
  as: string
  args: string[]
  shardingKey: string
}
interface View {
  name: string
  target: string
  body: string
}

function allClusterStatements(): string[] {
  return [...bootstrapDdl(t, layout), ...migrations.flatMap((m) => migrationDdl(m, t, layout))]
}

function parse(statements: string[]) {
  const locals = new Map<string, LocalTable>()
  const distributed = new Map<string, DistributedTable>()
  const views: View[] = []
  for (const sql of statements) {
    const local = /^CREATE TABLE IF NOT EXISTS smart_money\.(\w+) ON CLUSTER \w+ \([\s\S]*\)\s*ENGINE = (\w+)(?:\(([^)]*)\))?([\s\S]*)$/.exec(sql)
    if (local) {
      locals.set(local[1]!, { name: local[1]!, engine: local[2]!, engineArgs: local[3] ?? '', rest: local[4]!.trim() })
      continue
    }
    const dist = /^CREATE TABLE IF NOT EXISTS smart_money\.(\w+) ON CLUSTER \w+ AS smart_money\.(\w+)\s+ENGINE = Distributed\('([^']*)', '([^']*)', '([^']*)', (.+)\)$/.exec(sql)
    if (dist) {
      distributed.set(dist[1]!, { name: dist[1]!, as: dist[2]!, args: [dist[3]!, dist[4]!, dist[5]!], shardingKey: dist[6]! })
      continue
    }
    const view = /^CREATE MATERIALIZED VIEW IF NOT EXISTS smart_money\.(\w+) ON CLUSTER \w+ TO smart_money\.(\w+) AS([\s\S]*)$/.exec(sql)
    if (view) views.push({ name: view[1]!, target: view[2]!, body: view[3]! })
  }
  return { locals, distributed, views }
}

/** The single-node table of each CREATE TABLE statement, with its engine clause and what follows it. */
function singleNodeTables(): Map<string, { engineArgs: string; rest: string }> {
  const out = new Map<string, { engineArgs: string; rest: string }>()
  const statements = [...bootstrapDdl(t, { cluster: null }), ...migrations.flatMap((m) => (m.cluster?.statements ?? m.statements)(t))]
  for (const sql of statements) {
    const match = /^CREATE TABLE IF NOT EXISTS smart_money\.(\w+) \([\s\S]*\)\s*ENGINE = \w+(?:\(([^)]*)\))?([\s\S]*)$/.exec(sql.trim())
    if (match) out.set(match[1]!, { engineArgs: match[2] ?? '', rest: match[3]!.trim() })
  }
  return out
}

describe('cluster DDL (CLICKHOUSE_CLUSTER)', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  it('every statement of every migration has a cluster variant, and every one runs ON CLUSTER', () => {
    for (const migration of migrations) expect(() => migrationDdl(migration, t, layout)).not.toThrow()
    const statements = allClusterStatements()
    expect(statements.length).toBeGreaterThan(30)
    for (const sql of statements) expect(sql).toContain(`ON CLUSTER ${CLUSTER}`)
  })

  it('every stored table is a Replicated*MergeTree with the Keeper path and replica macros, keeping its own engine arguments and keys', () => {
    const { locals } = parse(allClusterStatements())
    const single = singleNodeTables()
    expect(locals.size).toBeGreaterThanOrEqual(15)
    for (const table of locals.values()) {
      expect(table.name.endsWith('_local')).toBe(true)
      if (table.engine === 'Null') continue // swaps_incoming: stores nothing, its views do
      expect(table.engine).toMatch(/^Replicated(Replacing)?MergeTree$/)
      const [path, replica, ...own] = table.engineArgs.split(',').map((a) => a.trim())
      expect(path).toBe(`'${KEEPER_PATH}'`)
      expect(path).toBe("'/clickhouse/tables/{shard}/{database}/{table}'")
      expect(replica).toBe("'{replica}'")
      const original = single.get(table.name.replace(/_local$/, ''))!
      expect(own.join(', ')).toBe(original.engineArgs)
      expect(table.rest).toBe(original.rest)
    }
    expect(locals.get('swaps_by_time_local')).toMatchObject({ engine: 'ReplicatedReplacingMergeTree' })
    expect(locals.get('swaps_by_time_local')!.engineArgs).toMatch(/, ingested_at, is_deleted$/)
    expect(locals.get('swap_moves_local')).toMatchObject({ engine: 'ReplicatedMergeTree' })
    expect(locals.get('swaps_incoming_local')).toMatchObject({ engine: 'Null' })
  })

  it('every table has a Distributed counterpart under its single-node name, sharded by what its duplicates share', () => {
    const { locals, distributed } = parse(allClusterStatements())
    expect([...distributed.keys()].sort()).toEqual([...locals.keys()].map((n) => n.replace(/_local$/, '')).sort())
    for (const d of distributed.values()) {
      expect(d.as).toBe(`${d.name}_local`)
      expect(d.args).toEqual([CLUSTER, 'smart_money', `${d.name}_local`])
      expect(d.shardingKey).toBe(EXPECTED_SHARDING_KEYS[d.name])
    }
    expect(Object.keys(EXPECTED_SHARDING_KEYS).sort()).toEqual([...distributed.keys()].sort())
  })

  it('materialized views join the local tables, and a view filling a deduplicated table keeps its rows on their shard', () => {
    const { views, distributed, locals } = parse(allClusterStatements())
    expect(views.length).toBeGreaterThanOrEqual(9)
    for (const view of views) {
      expect(view.target.endsWith('_local')).toBe(true)
      const references = [...view.body.matchAll(/smart_money\.(\w+)/g)].map((m) => m[1]!)
      expect(references.length).toBeGreaterThan(0)
      for (const name of references) expect(name).toMatch(/_local$/)
      // The same sharding key on both sides: every version of a row is on the shard of
      // the row it was derived from, so FINAL in that table stays exact per shard.
      const target = view.target.replace(/_local$/, '')
      if (locals.get(view.target)?.engine === 'ReplicatedReplacingMergeTree') {
        const source = /FROM smart_money\.(\w+)_local/.exec(view.body)![1]!
        expect(distributed.get(target)!.shardingKey, `${view.name}: ${source} → ${target}`).toBe(distributed.get(source)!.shardingKey)
      }
    }
    const moves = views.find((v) => v.name === 'mv_swap_moves')!
    expect(moves.body).toMatch(/FROM smart_money\.swap_locations_local\b/) // the retraction lookup reads its own shard
  })

  it('the baseline has a cluster variant of every table and view it creates on one node', () => {
    const singleNode = baseline.statements(t)
    const names = (pattern: RegExp) => singleNode.flatMap((sql) => [...sql.matchAll(pattern)].map((m) => m[1]!)).sort()
    const tables = names(/^CREATE TABLE IF NOT EXISTS smart_money\.(\w+) \(/g)
    const views = names(/^CREATE MATERIALIZED VIEW IF NOT EXISTS smart_money\.(\w+) TO /g)
    expect(tables.length + views.length).toBe(singleNode.length)
    const { locals, distributed, views: clusterViews } = parse(migrationDdl(baseline, t, layout))
    expect([...distributed.keys()].sort()).toEqual(tables)
    expect([...locals.keys()].sort()).toEqual(tables.map((name) => `${name}_local`).sort())
    expect(clusterViews.map((v) => v.name).sort()).toEqual(views)
  })

  it('a cluster store gets the schema of one node: holdings keyed by token, the run swaps replicated (in memory on one node), plain amounts on the stored table, the store id written', () => {
    const { locals } = parse(allClusterStatements())
    expect(locals.has('swaps_local')).toBe(false)
    expect(locals.get('holdings_local')!.rest).toBe('ORDER BY (contract_address, wallet_address)')
    // A Memory table is one server's: on a cluster the swaps a run folds are a replicated table.
    expect(locals.get('wallet_run_swaps_local')).toMatchObject({ engine: 'ReplicatedMergeTree', rest: 'ORDER BY (wallet_address, timestamp)' })
    expect(baseline.statements(t).find((sql) => sql.includes('smart_money.wallet_run_swaps '))).toMatch(/ENGINE = Memory$/)
    expect(locals.get('swaps_by_time_local')!.rest).toContain('PARTITION BY toYYYYMM(timestamp)')
    // wallet_stats' plain amounts: the codec on the local table, which stores them, not on the Distributed one.
    const codecs = allClusterStatements().filter((sql) => /^ALTER TABLE smart_money\.wallet_stats(_local)? /.test(sql))
    expect(codecs).toHaveLength(2)
    expect(codecs[0]).toMatch(/^ALTER TABLE smart_money\.wallet_stats_local ON CLUSTER \w+ MODIFY COLUMN volume_usd Float64 CODEC\(NONE\), /)
    expect(codecs[1]).toMatch(/^ALTER TABLE smart_money\.wallet_stats ON CLUSTER \w+ MODIFY COLUMN volume_usd Float64, /)
    expect(codecs[1]).not.toContain('CODEC')
    expect(runsDataStep(baseline, layout)).toBe(true)
    expect(runsDataStep(baseline, { cluster: null })).toBe(true)
  })

  it('a column change reaches the local and the Distributed table; the database is created on every server', () => {
    const alter = clusterDdl('ALTER TABLE smart_money.dead_letters ADD COLUMN IF NOT EXISTS x String', 'smart_money', CLUSTER)
    expect(alter).toEqual([
      `ALTER TABLE smart_money.dead_letters_local ON CLUSTER ${CLUSTER} ADD COLUMN IF NOT EXISTS x String`,
      `ALTER TABLE smart_money.dead_letters ON CLUSTER ${CLUSTER} ADD COLUMN IF NOT EXISTS x String`,
    ])
    expect(bootstrapDdl(t, layout)[0]).toBe(`CREATE DATABASE IF NOT EXISTS smart_money ON CLUSTER ${CLUSTER}`)
  })

  it('a codec reaches only the local table, which stores the column; the Distributed one gets the column without it', () => {
    expect(clusterDdl('ALTER TABLE smart_money.wallet_stats MODIFY COLUMN volume_usd Float64 CODEC(NONE)', 'smart_money', CLUSTER)).toEqual([
      `ALTER TABLE smart_money.wallet_stats_local ON CLUSTER ${CLUSTER} MODIFY COLUMN volume_usd Float64 CODEC(NONE)`,
      `ALTER TABLE smart_money.wallet_stats ON CLUSTER ${CLUSTER} MODIFY COLUMN volume_usd Float64`,
    ])
    expect(clusterDdl('ALTER TABLE smart_money.dead_letters ADD COLUMN IF NOT EXISTS x UInt64 CODEC(Delta(8), LZ4), ADD COLUMN IF NOT EXISTS y String', 'smart_money', CLUSTER)).toEqual([
      `ALTER TABLE smart_money.dead_letters_local ON CLUSTER ${CLUSTER} ADD COLUMN IF NOT EXISTS x UInt64 CODEC(Delta(8), LZ4), ADD COLUMN IF NOT EXISTS y String`,
      `ALTER TABLE smart_money.dead_letters ON CLUSTER ${CLUSTER} ADD COLUMN IF NOT EXISTS x UInt64, ADD COLUMN IF NOT EXISTS y String`,
    ])
  })

  it('refuses what it cannot convert: an unknown statement, a table without a sharding key', () => {
    expect(() => clusterDdl('TRUNCATE TABLE smart_money.tokens', 'smart_money', CLUSTER)).toThrow(ClusterDdlError)
    expect(() => clusterDdl('DROP TABLE smart_money.tokens', 'smart_money', CLUSTER)).toThrow(ClusterDdlError)
    expect(clusterDdl('DROP TABLE IF EXISTS smart_money.tokens', 'smart_money', CLUSTER)).toEqual([
      `DROP TABLE IF EXISTS smart_money.tokens ON CLUSTER ${CLUSTER}`,
      `DROP TABLE IF EXISTS smart_money.tokens_local ON CLUSTER ${CLUSTER}`,
    ])
    expect(() => clusterDdl('CREATE TABLE IF NOT EXISTS smart_money.unheard_of (a String) ENGINE = MergeTree ORDER BY a', 'smart_money', CLUSTER)).toThrow(
      /no sharding key declared for smart_money.unheard_of/,
    )
  })

  it('ClickHouse parses every cluster statement', async () => {
    for (const sql of allClusterStatements()) {
      const [row] = await queryRows<{ f: string }>(rt.clickhouse, 'SELECT formatQuery({q:String}) AS f', { q: sql })
      expect(row!.f, sql).toMatch(/^(CREATE|ALTER|DROP)/)
    }
    await expect(queryRows(rt.clickhouse, 'SELECT formatQuery({q:String})', { q: 'CREATE TABLE x ON CLUSTER (a Int8) ENGINE = M(' })).rejects.toThrow(/Syntax error/)
  })

  it('every sharding key is an expression over the columns of the table it shards (evaluated on the single-node store)', async () => {
    const { distributed } = parse(migrations.flatMap((m) => migrationDdl(m, rt.tables, layout)).concat(bootstrapDdl(rt.tables, layout)).map((s) => s.replaceAll(`${rt.tables.database}.`, 'smart_money.')))
    for (const d of distributed.values()) {
      const table = d.name === 'store_identity' ? `${rt.tables.database}.store_identity` : `${rt.tables.database}.${d.name}`
      await expect(queryRows(rt.clickhouse, `SELECT ${d.shardingKey} AS k FROM ${table} LIMIT 1`), d.name).resolves.toBeDefined()
    }
  })

  it('without CLICKHOUSE_CLUSTER the DDL is unchanged: each migration its own statements, and the migrations table exactly as every store has it', () => {
    expect(loadConfig({}).storage.cluster).toBeNull()
    const none = { cluster: null }
    for (const migration of migrations) expect(migrationDdl(migration, t, none)).toEqual(migration.statements(t))
    const before = JSON.parse(readFileSync(new URL('./fixtures/single-node-ddl.json', import.meta.url), 'utf8')) as Record<string, string[]>
    expect({ '0_bootstrap': bootstrapDdl(t, none) }).toEqual(before)
    for (const sql of [...bootstrapDdl(t, none), ...migrations.flatMap((m) => migrationDdl(m, t, none))]) expect(sql).not.toMatch(/ON CLUSTER|Replicated|Distributed/)
  })

  it('CLICKHOUSE_CLUSTER is a plain identifier and needs a ClickHouse server', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'main' }).storage.cluster).toBe('main')
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'main' })).toThrow(/CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/)
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: "x' ; DROP" })).toThrow(/CLICKHOUSE_CLUSTER/)
  })
})
