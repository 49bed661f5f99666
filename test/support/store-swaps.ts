import { swapEntryTables } from '../../shared/storage/schema/swaps-schema.js'
import type { Runtime } from '../../shared/runtime.js'

/**
 * Stores swap rows as ingestion does, without the queue: through the swaps entry tables,
 * whose views keep every access path and the change feed in step (an API's cached hour
 * counts and candle reads see them at once).
 */
export async function storeSwapRows(
  runtime: Runtime,
  values: (Record<string, unknown> & { timestamp: number | string })[],
): Promise<void> {
  if (values.length === 0) return
  for (const table of swapEntryTables(runtime.tables)) await runtime.clickhouse.insert({ table, values, format: 'JSONEachRow' })
}
