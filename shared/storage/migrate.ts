import type { ClickHouseClient } from './clickhouse.js'
import type { Tables } from './tables.js'
import { migrations as allMigrations } from './migrations/index.js'
import type { Migration } from './migrations/migration.js'
import { bootstrapDdl, migrationDdl, runsDataStep, type SchemaLayout } from './migrations/migration-ddl.js'

/**
 * Applies, in order, every migration not yet recorded in the migrations table, and
 * records each one. Returns the versions applied by this call (empty on a restart).
 * Statements are idempotent, so two processes starting together cannot break the schema.
 * With a cluster (CLICKHOUSE_CLUSTER) every statement is its cluster variant (migrations/migration-ddl.ts).
 */
export async function migrate(
  client: ClickHouseClient,
  tables: Tables,
  migrations: readonly Migration[] = allMigrations,
  layout: SchemaLayout = { cluster: null },
): Promise<number[]> {
  for (const statement of bootstrapDdl(tables, layout)) await client.command({ query: statement })
  const done = await appliedVersions(client, tables)
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
