import type { ClickHouseClient } from '../clickhouse.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'

/** What system.tables states of a table that migrations decide on. */
export interface TableFacts {
  sorting_key: string
  engine_full: string
}

/** A table of the database as system.tables states it, or null when there is no such table. */
export async function tableFacts(clickhouse: ClickHouseClient, t: Tables, table: string): Promise<TableFacts | null> {
  const [row] = await queryRows<TableFacts>(clickhouse, 'SELECT sorting_key, engine_full FROM system.tables WHERE database = {db:String} AND name = {name:String}', {
    db: t.database,
    name: table.slice(t.database.length + 1),
  })
  return row ?? null
}
