import { createClickHouse } from './storage/clickhouse.js'
import type { Config } from './platform/config.js'
import { applyInsertDurability } from './storage/insert-durability.js'
import { createLogger } from './platform/logger.js'
import { migrate } from './storage/migrate.js'
import type { Runtime } from './runtime.js'
import { tablesFor } from './storage/tables.js'

/** Opens ClickHouse and brings its schema up to date: the first step of every entry point. */
export async function openRuntime(config: Config, role: string): Promise<Runtime> {
  const logger = createLogger(config.logLevel, { role })
  const clickhouse = createClickHouse(config.clickhouse, config.storage)
  const tables = tablesFor(config.clickhouse.database)
  const applied = await migrate(clickhouse, tables, undefined, config.storage)
  if (applied.length > 0) logger.info('applied migrations', { versions: applied })
  const durability = await applyInsertDurability(clickhouse, tables, config.storage)
  if (durability.length > 0) logger.info(config.storage.fsync ? 'inserts fsynced from now on' : 'inserts no longer fsynced', { tables: durability })
  return { config, clickhouse, tables, logger }
}
