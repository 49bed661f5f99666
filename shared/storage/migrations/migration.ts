import type { ClickHouseClient } from '../clickhouse.js'
import type { Tables } from '../tables.js'

export interface Migration {
  /** Strictly increasing; the order in which migrations apply. */
  version: number
  name: string
  /** Idempotent DDL statements (IF NOT EXISTS), so a half-applied migration can be re-run. */
  statements: (tables: Tables) => string[]
  /** Data to move after the statements; must also be safe to re-run after a crash. */
  run?: (clickhouse: ClickHouseClient, tables: Tables) => Promise<void>
  /**
   * On a cluster (CLICKHOUSE_CLUSTER), where a store is always created at the current
   * layout: a migration that moves an older single-node layout says what it creates
   * instead (single-node statements, rewritten by schema/cluster-ddl.ts) and that its data
   * step does not apply. Absent: `statements` rewritten, and `run` as on one node.
   */
  cluster?: { statements: (tables: Tables) => string[]; run: boolean }
}
