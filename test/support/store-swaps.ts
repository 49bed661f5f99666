import { swapEntryTables } from '../../shared/storage/schema/swaps-schema.js'
import { markCandleInputsChanged } from '../../shared/swaps/data-versions.js'
import { createRedis } from '../../shared/platform/redis.js'
import type { Runtime } from '../../shared/runtime.js'
import { hourStart, markSwapHoursChanged } from '../../shared/swaps/swap-hours.js'

/**
 * Stores swap rows as ingestion does, without the queue: through the swaps entry tables
 * (whose views keep every access path in step), then marks their hours and the candle
 * inputs changed so an API's cached hour counts and candle reads see them.
 */
export async function storeSwapRows(
  runtime: Runtime,
  values: (Record<string, unknown> & { timestamp: number | string })[],
): Promise<void> {
  if (values.length === 0) return
  for (const table of swapEntryTables(runtime.tables)) await runtime.clickhouse.insert({ table, values, format: 'JSONEachRow' })
  const hours = new Set(values.map((v) => hourStart(typeof v.timestamp === 'number' ? v.timestamp : Date.parse(`${v.timestamp}Z`))))
  const redis = createRedis(runtime.config.redis.url)
  try {
    await markSwapHoursChanged(redis, runtime.config.redis.prefix, hours)
    await markCandleInputsChanged(redis, runtime.config.redis.prefix)
  } finally {
    redis.disconnect()
  }
}
