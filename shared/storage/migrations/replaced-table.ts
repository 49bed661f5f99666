import type { ClickHouseClient } from '../clickhouse.js'
import type { Tables } from '../tables.js'
import { tableFacts } from './table-facts.js'

/**
 * The data step of a migration whose new table replaces `old`: copies its rows over with
 * `copy` (an INSERT … SELECT from it) and drops it; nothing once it is gone. A crash between
 * the two copies the rows again on the next start: for tables whose rows are read as a set.
 */
export async function copyRowsAndDrop(clickhouse: ClickHouseClient, t: Tables, old: string, copy: string): Promise<void> {
  if ((await tableFacts(clickhouse, t, old)) === null) return
  await clickhouse.command({ query: copy })
  await clickhouse.command({ query: `DROP TABLE IF EXISTS ${old}` })
}
