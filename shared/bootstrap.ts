import { createClickHouse } from './clickhouse.js'
import type { Config } from './config.js'
import { createLogger } from './logger.js'
import { migrate } from './migrate.js'
import type { Runtime } from './runtime.js'
import { tablesFor } from './tables.js'

/** Opens ClickHouse and brings its schema up to date: the first step of every entry point. */
export async function openRuntime(config: Config, role: string): Promise<Runtime> {
  const logger = createLogger(config.logLevel, { role })
  const clickhouse = createClickHouse(config.clickhouse)
  const tables = tablesFor(config.clickhouse.database)
  const applied = await migrate(clickhouse, tables)
  if (applied.length > 0) logger.info('applied migrations', { versions: applied })
  return { config, clickhouse, tables, logger }
}
