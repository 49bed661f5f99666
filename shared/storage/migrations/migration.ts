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
   * On a cluster (CLICKHOUSE_CLUSTER): the single-node statements its cluster variant is
   * made from (rewritten by schema/cluster-ddl.ts) when they differ from `statements`, and
   * whether the data step runs there. Absent: `statements` rewritten, and `run` as on one node.
   */
  cluster?: { statements: (tables: Tables) => string[]; run: boolean }
}
