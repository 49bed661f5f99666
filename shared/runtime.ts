import type { ClickHouseClient } from './storage/clickhouse.js'
import type { Config } from './platform/config.js'
import type { Logger } from './platform/logger.js'
import type { Tables } from './storage/tables.js'

/** What every role is started with. Each role opens its own Redis connections from config.redis. */
export interface Runtime {
  config: Config
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
}

/** A started role (api, ingest, indicators); stop() drains it and releases what it opened. */
export interface RunningRole {
  name: string
  stop(): Promise<void>
}
