import type { ClickHouseClient } from './clickhouse.js'
import { queryRows } from './query-rows.js'
import type { Tables } from './tables.js'

/**
 * The MergeTree settings that make an acknowledged insert survive an OS crash or a power
 * loss: each inserted part's files, then its directory, are fsynced before the insert
 * returns. (Merged parts are not fsynced; the parts they replace are kept on disk for
 * `old_parts_lifetime`, 8 minutes, which is what protects merges.) ClickHouse has no
 * query-level equivalent, so they are table settings, set on every MergeTree table of the
 * database at start (CLICKHOUSE_FSYNC=1, the default) or reset to the server's default
 * (CLICKHOUSE_FSYNC=0). Inserts into views' entry tables reach their targets, which carry
 * the settings themselves.
 */
export const DURABLE_INSERT_SETTINGS = ['fsync_after_insert', 'fsync_part_directory'] as const

export interface DurabilityOptions {
  fsync: boolean
  /** Set on a cluster: the settings are changed on every replica's local tables. */
  cluster?: string | null
}

/** Brings every MergeTree table of the database to the wanted settings; returns the tables it changed. */
export async function applyInsertDurability(
  clickhouse: ClickHouseClient,
  tables: Tables,
  options: DurabilityOptions,
): Promise<string[]> {
  const rows = await queryRows<{ name: string; engine_full: string }>(
    clickhouse,
    `SELECT name, engine_full FROM system.tables
     WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name`,
    { db: tables.database },
  )
  const onCluster = options.cluster ? ` ON CLUSTER ${options.cluster}` : ''
  const changed: string[] = []
  for (const { name, engine_full } of rows) {
    if (isDurable(engine_full) === options.fsync) continue
    const change = options.fsync
      ? `MODIFY SETTING ${DURABLE_INSERT_SETTINGS.map((s) => `${s} = 1`).join(', ')}`
      : `RESET SETTING ${DURABLE_INSERT_SETTINGS.join(', ')}`
    await clickhouse.command({ query: `ALTER TABLE ${tables.database}.${name}${onCluster} ${change}` })
    changed.push(name)
  }
  return changed
}

/** Whether a table's engine clause (system.tables.engine_full) sets every durable-insert setting to 1. */
export function isDurable(engineFull: string): boolean {
  return DURABLE_INSERT_SETTINGS.every((s) => new RegExp(`\\b${s} = 1\\b`).test(engineFull))
}
