import type { ClickHouseClient } from './clickhouse.js'
import type { Tables } from './tables.js'
import { BASELINE_VERSION } from './migrations/026_baseline.js'
import { migrations as allMigrations } from './migrations/index.js'
import type { Migration } from './migrations/migration.js'
import { bootstrapDdl, migrationDdl, runsDataStep, type SchemaLayout } from './migrations/migration-ddl.js'

/** A store whose schema is older than the baseline: this code cannot bring it up to date. */
export class StoreTooOldError extends Error {
  constructor(database: string, version: number) {
    super(
      `the store at ${database} is at schema version ${version}, older than the baseline (${BASELINE_VERSION}); this version cannot upgrade it: ` +
        `back up what you need, drop the database (DROP DATABASE ${database}) or point CLICKHOUSE_DATABASE (or CLICKHOUSE_PATH) elsewhere, ` +
        'and start again to rebuild it, then re-run the backfill',
    )
    this.name = 'StoreTooOldError'
  }
}

/**
 * Applies, in order, every migration not yet recorded in the migrations table, and
 * records each one. Returns the versions applied by this call (empty on a restart).
 * A new store gets the baseline (migrations/026_baseline.ts); a store at the baseline's
 * version or later is taken as it is; one that records only older versions is refused
 * (StoreTooOldError) before anything is changed. Versions this code does not know (a newer
 * store) are left alone. Statements are idempotent, so two processes starting together
 * cannot break the schema. With a cluster (CLICKHOUSE_CLUSTER) every statement is its
 * cluster variant (migrations/migration-ddl.ts).
 */
export async function migrate(
  client: ClickHouseClient,
  tables: Tables,
  migrations: readonly Migration[] = allMigrations,
  layout: SchemaLayout = { cluster: null },
): Promise<number[]> {
  for (const statement of bootstrapDdl(tables, layout)) await client.command({ query: statement })
  const done = await appliedVersions(client, tables)
  const latest = Math.max(0, ...done)
  if (latest > 0 && latest < BASELINE_VERSION) throw new StoreTooOldError(tables.database, latest)
  const applied: number[] = []
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(migration.version)) continue
    for (const statement of migrationDdl(migration, tables, layout)) {
      await client.command({ query: statement })
    }
    if (runsDataStep(migration, layout)) await migration.run?.(client, tables)
    await client.insert({
      table: tables.migrations,
      values: [{ version: migration.version, name: migration.name, applied_at: Date.now() }],
      format: 'JSONEachRow',
    })
    applied.push(migration.version)
  }
  return applied
}

export async function appliedVersions(client: ClickHouseClient, tables: Tables): Promise<Set<number>> {
  const rs = await client.query({
    query: `SELECT DISTINCT version FROM ${tables.migrations}`,
    format: 'JSONEachRow',
  })
  const rows = await rs.json<{ version: number | string }>()
  return new Set(rows.map((r) => Number(r.version)))
}
