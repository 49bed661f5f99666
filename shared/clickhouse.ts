import { createClient, type ClickHouseClient, type ClickHouseClientConfigOptions, type ClickHouseSettings } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import type { Config } from './config.js'

export type { ClickHouseClient }

/**
 * The one way to reach ClickHouse: a server when CLICKHOUSE_URL is set, otherwise
 * embedded chDB on CLICKHOUSE_PATH, both behind @clickhouse/client.
 * 64-bit and wider integers are always quoted in JSON output (the server's default),
 * so UInt256 amounts never pass through a JavaScript number. On a cluster
 * (CLICKHOUSE_CLUSTER) the tables the service names are Distributed (docs/scale-out.md).
 */
export function createClickHouse(config: Config['clickhouse'], storage: Pick<Config['storage'], 'cluster'> = { cluster: null }): ClickHouseClient {
  const clickhouse_settings: ClickHouseSettings = { output_format_json_quote_64bit_integers: 1 }
  if (storage.cluster !== null) {
    // Through Distributed tables: an insert returns once every shard has its rows (not
    // queued on this server's disk first), so a job is acknowledged for stored rows; a
    // subquery on a Distributed table runs once and its result goes to every shard.
    clickhouse_settings.insert_distributed_sync = 1
    clickhouse_settings.distributed_product_mode = 'global'
  }
  if (config.mode === 'server') {
    return createClient({
      url: config.url,
      username: config.user,
      password: config.password,
      clickhouse_settings,
      request_timeout: 120_000,
    })
  }
  // chdb types its Connection against its own copy of @clickhouse/client-common; the
  // shapes are the same contract, only the declaration files differ.
  const connection = createChdbConnection({ path: config.path }) as unknown as ClickHouseClientConfigOptions['connection']
  return createClient({ connection, clickhouse_settings })
}
