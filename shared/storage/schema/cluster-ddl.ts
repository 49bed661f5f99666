/**
 * The cluster variant of the schema (CLICKHOUSE_CLUSTER set): every single-node statement
 * rewritten for a ClickHouse cluster with replicas coordinated by Keeper.
 *
 *   CREATE TABLE db.t (…) ENGINE = ReplacingMergeTree(v) …
 *     ▶ CREATE TABLE db.t_local ON CLUSTER c (…) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', v) …
 *     ▶ CREATE TABLE db.t ON CLUSTER c AS db.t_local ENGINE = Distributed(c, db, t_local, <sharding key>)
 *   CREATE MATERIALIZED VIEW db.mv TO db.target AS SELECT … FROM db.source
 *     ▶ the same ON CLUSTER, between the local tables: a view fires on the shard that received the block
 *   ALTER TABLE db.t … COLUMN …  ▶ on the local table and on the Distributed one, ON CLUSTER (codecs on the local one)
 *   CREATE DATABASE db           ▶ ON CLUSTER
 *   DROP TABLE|VIEW IF EXISTS db.x ▶ ON CLUSTER (a table's local one too)
 *
 * The Distributed table keeps the single-node name, so the service reads and inserts
 * through the same names on both layouts (shared/storage/tables.ts). Each table's sharding key is
 * what its duplicates share, so every version of a record lands on one shard and
 * ReplacingMergeTree's FINAL, which deduplicates within a shard, stays exact: all swap
 * tables by the transaction hash (the views that derive one swap table from another then
 * stay on the shard: the retraction lookup in swap_locations is local), holdings by
 * wallet and token, token rows and prices by token, and so on (SHARDING_KEYS).
 *
 * Only statements of the shapes the schema modules emit are understood; anything else
 * throws, so a new kind of statement cannot slip through unconverted
 * (test/cluster-ddl.test.ts converts every migration).
 */

/** Where each replica keeps its table's state in Keeper; {shard} and {replica} are the servers' macros. */
export const KEEPER_PATH = '/clickhouse/tables/{shard}/{database}/{table}'
export const REPLICA_NAME = '{replica}'
export const LOCAL_SUFFIX = '_local'

const BY_HASH = 'cityHash64(hash)'

/** The sharding key of every table, by its unqualified name. */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  schema_migrations: 'version',
  tokens: 'cityHash64(contract_address)',
  swaps_incoming: BY_HASH,
  swap_versions_incoming: BY_HASH,
  swaps_by_time: BY_HASH,
  swap_locations: BY_HASH,
  swap_rows_by_wallet: BY_HASH,
  swap_legs_by_token: BY_HASH,
  swap_moves: BY_HASH,
  holdings: 'cityHash64(wallet_address, contract_address)',
  holdings_by_wallet: 'cityHash64(wallet_address, contract_address)',
  prices: 'cityHash64(contract_address)',
  candles_1h: 'cityHash64(token)',
  token_wallet_hour_flows: 'cityHash64(token)',
  changes: BY_HASH,
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

export class ClusterDdlError extends Error {}

/** The local table behind a Distributed one: `db.t` ▶ `db.t_local`. */
export function localTable(qualified: string): string {
  return `${qualified}${LOCAL_SUFFIX}`
}

/** One single-node statement as the statements of the cluster variant. */
export function clusterDdl(statement: string, database: string, cluster: string): string[] {
  const onCluster = `ON CLUSTER ${cluster}`
  const sql = statement.trim()

  const createDatabase = /^CREATE DATABASE IF NOT EXISTS (\w+)$/.exec(sql)
  if (createDatabase) return [`${sql} ${onCluster}`]

  const createTable = /^CREATE TABLE IF NOT EXISTS (\S+) \(([\s\S]*)\)\s*ENGINE = (\w+)(?:\(([^)]*)\))?([\s\S]*)$/.exec(sql)
  if (createTable) {
    const [, table, columns, engine, args, rest] = createTable as unknown as [string, string, string, string, string | undefined, string]
    const name = unqualified(table, database)
    const shardingKey = SHARDING_KEYS[name]
    if (shardingKey === undefined) throw new ClusterDdlError(`no sharding key declared for ${table} (shared/storage/schema/cluster-ddl.ts)`)
    const local = localTable(table)
    return [
      `CREATE TABLE IF NOT EXISTS ${local} ${onCluster} (${columns}) ENGINE = ${replicatedEngine(engine, args)}${rest}`,
      `CREATE TABLE IF NOT EXISTS ${table} ${onCluster} AS ${local}
    ENGINE = Distributed('${cluster}', '${database}', '${name}${LOCAL_SUFFIX}', ${shardingKey})`,
    ]
  }

  const createView = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\S+) TO (\S+) AS\b([\s\S]*)$/.exec(sql)
  if (createView) {
    const [, view, target, select] = createView as unknown as [string, string, string, string]
    return [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} ${onCluster} TO ${localTable(target)} AS${localReferences(select, database)}`]
  }

  const alter = /^ALTER TABLE (\S+)\s+([\s\S]*)$/.exec(sql)
  if (alter) {
    const [, table, changes] = alter as unknown as [string, string, string]
    unqualified(table, database)
    const statements = [`ALTER TABLE ${localTable(table)} ${onCluster} ${changes}`]
    // A Distributed table has the columns of its local table: column changes apply to both,
    // without their codecs (a Distributed table stores nothing to compress).
    if (/\b(ADD|DROP|MODIFY|RENAME|CLEAR) COLUMN\b/i.test(changes)) statements.push(`ALTER TABLE ${table} ${onCluster} ${withoutCodecs(changes)}`)
    return statements
  }

  const drop = /^DROP (TABLE|VIEW) IF EXISTS (\S+)$/.exec(sql)
  if (drop) {
    const [, kind, name] = drop as unknown as [string, string, string]
    unqualified(name, database)
    const statements = [`DROP ${kind} IF EXISTS ${name} ${onCluster}`]
    if (kind === 'TABLE') statements.push(`DROP TABLE IF EXISTS ${localTable(name)} ${onCluster}`)
    return statements
  }

  throw new ClusterDdlError(`no cluster variant for this statement: ${sql.slice(0, 80)}…`)
}

/** Column definitions without their `CODEC(…)` clauses (a codec's arguments may hold one level of parentheses). */
function withoutCodecs(changes: string): string {
  return changes.replace(/\s+CODEC\((?:[^()]|\([^()]*\))*\)/gi, '')
}

/** `MergeTree` ▶ `ReplicatedMergeTree('<keeper path>', '{replica}')`, keeping the engine's own arguments after them; `Null` stays. */
function replicatedEngine(engine: string, args: string | undefined): string {
  if (engine === 'Null') return 'Null'
  if (!engine.endsWith('MergeTree')) throw new ClusterDdlError(`no replicated form of engine ${engine}`)
  const own = args?.trim() ? `, ${args.trim()}` : ''
  return `Replicated${engine}('${KEEPER_PATH}', '${REPLICA_NAME}'${own})`
}

/** Inside a view's query every table is the local one: a view reads and writes its own shard. */
function localReferences(select: string, database: string): string {
  return select.replace(new RegExp(`\\b${database}\\.(\\w+)\\b`, 'g'), (_, name: string) => `${database}.${name}${LOCAL_SUFFIX}`)
}

function unqualified(table: string, database: string): string {
  if (!table.startsWith(`${database}.`)) throw new ClusterDdlError(`${table} is not a table of database ${database}`)
  return table.slice(database.length + 1)
}
