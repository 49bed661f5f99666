import { clusterDdl } from '../schema/cluster-ddl.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/** Where the schema lives: one server (null), or the named cluster of the ClickHouse servers' configuration. */
export interface SchemaLayout {
  cluster: string | null
}

/** The DDL a migration applies: its statements on one node, their cluster variant on a cluster. */
export function migrationDdl(migration: Migration, tables: Tables, { cluster }: SchemaLayout): string[] {
  if (cluster === null) return migration.statements(tables)
  return (migration.cluster?.statements ?? migration.statements)(tables).flatMap((s) => clusterDdl(s, tables.database, cluster))
}

/** Whether a migration's data step runs on this layout. */
export function runsDataStep(migration: Migration, layout: SchemaLayout): boolean {
  return migration.run !== undefined && (layout.cluster === null || migration.cluster?.run !== false)
}

/** The statements that create the database and the migrations table, before any migration. */
export function bootstrapDdl(tables: Tables, { cluster }: SchemaLayout): string[] {
  const statements = [
    `CREATE DATABASE IF NOT EXISTS ${tables.database}`,
    `CREATE TABLE IF NOT EXISTS ${tables.migrations} (
      version UInt32,
      name String,
      applied_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY version`,
  ]
  return cluster === null ? statements : statements.flatMap((s) => clusterDdl(s, tables.database, cluster))
}
