import type { ClickHouseClient } from './clickhouse.js'

/** The rows of a query, with its values as typed parameters (never spliced into the SQL). */
export async function queryRows<T>(clickhouse: ClickHouseClient, query: string, query_params: Record<string, unknown> = {}): Promise<T[]> {
  const rs = await clickhouse.query({ query, query_params, format: 'JSONEachRow' })
  return rs.json<T>()
}
