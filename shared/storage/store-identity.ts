import { randomUUID } from 'node:crypto'
import type { ClickHouseClient } from './clickhouse.js'
import type { Tables } from './tables.js'

/** The table holding the store's id (schema/store-identity-schema.ts). */
export function storeIdentityTable(t: Tables): string {
  return `${t.database}.store_identity`
}

/**
 * The store's id: a random UUID written once into `store_identity` when the store is created. Should
 * two processes create a new store at the same moment and both write one, every reader
 * takes the earliest, so they agree once both rows are in.
 */
export async function readStoreId(clickhouse: ClickHouseClient, tables: Tables): Promise<string> {
  return (await storedId(clickhouse, tables)) ?? ensureStoreId(clickhouse, tables)
}

/** Writes an id when the store has none; returns the store's id. */
export async function ensureStoreId(clickhouse: ClickHouseClient, tables: Tables): Promise<string> {
  const existing = await storedId(clickhouse, tables)
  if (existing !== null) return existing
  await clickhouse.insert({
    table: storeIdentityTable(tables),
    values: [{ id: randomUUID() }],
    format: 'JSONEachRow',
  })
  const written = await storedId(clickhouse, tables)
  if (written === null) throw new Error('store identity: the id just written cannot be read back')
  return written
}

async function storedId(clickhouse: ClickHouseClient, tables: Tables): Promise<string | null> {
  const rs = await clickhouse.query({
    query: `SELECT id FROM ${storeIdentityTable(tables)} ORDER BY created_at, id LIMIT 1`,
    format: 'JSONEachRow',
  })
  const [row] = await rs.json<{ id: string }>()
  return row?.id ?? null
}
