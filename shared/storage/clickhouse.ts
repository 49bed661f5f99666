import { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { createClient, parseError, type ClickHouseClient, type ClickHouseClientConfigOptions, type ClickHouseSettings } from '@clickhouse/client'
import { createChdbConnection, type ChdbExtension } from 'chdb/connection'
import type { Config } from '../platform/config.js'

export type { ClickHouseClient, ClickHouseSettings }

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
  const connection = createChdbConnection({ path: config.path })
  for (const method of ['insert', 'command', 'exec'] as const) {
    const call = connection[method].bind(connection) as (params: never) => Promise<unknown>
    ;(connection as unknown as Record<string, unknown>)[method] = (params: never) => countedWrite(call(params))
  }
  const client = createClient({ connection: connection as unknown as ClickHouseClientConfigOptions['connection'], clickhouse_settings })
  embeddedEngines.set(client, connection.chdb)
  return client
}

let embeddedWrites = 0

/**
 * How many calls that can change the store (inserts, commands, execs) have ended on this
 * process's embedded engines, failed or not; null for a server. An embedded data directory
 * belongs to one process, so while this count stands still nothing in the store changed:
 * a reader of the change feed need not read its position again (api/feed-watch.ts).
 */
export function embeddedWritesEnded(clickhouse: ClickHouseClient): number | null {
  return embeddedEngines.has(clickhouse) ? embeddedWrites : null
}

function countedWrite<T>(call: Promise<T>): Promise<T> {
  return call.finally(() => {
    embeddedWrites++
  })
}

/** The chDB session behind each embedded client, for the inserts that bypass the SQL text path. */
const embeddedEngines = new WeakMap<ClickHouseClient, ChdbExtension>()

export interface FormattedRows {
  table: string
  columns: readonly string[]
  /** JSONCompactEachRow lines, one string per batch, inserted as one body. */
  texts: readonly string[]
}

/**
 * Inserts rows already written as JSONCompactEachRow text. On a server: the text as the
 * body of `INSERT … FORMAT`. Embedded: chDB's raw insert, which hands the bytes to the
 * engine's parallel parser (through the client the body is appended to the SQL text and
 * parsed inline; the raw insert is 17–34% faster through the swaps' entry tables, measured
 * by bench:ingest). Errors have the client's shape either way (a ClickHouseError with its `type`), so callers can tell a
 * refused row from a failed moment.
 */
export async function insertFormatted(clickhouse: ClickHouseClient, rows: FormattedRows): Promise<void> {
  const engine = embeddedEngines.get(clickhouse)
  if (engine === undefined) {
    const query = `INSERT INTO ${rows.table} (${rows.columns.join(', ')}) FORMAT JSONCompactEachRow`
    const result = await clickhouse.exec({ query, values: textStream(rows.texts) })
    result.stream.resume()
    await finished(result.stream)
    return
  }
  const body = Buffer.from(rows.texts.length === 1 ? rows.texts[0]! : rows.texts.join(''), 'utf8')
  if (body.length === 0) return
  try {
    await countedWrite(engine.rawInsert({ table: rows.table, columns: rows.columns, values: body, format: 'JSONCompactEachRow' }))
  } catch (err) {
    throw parseError(err instanceof Error ? err.message : String(err))
  }
}

/** The texts as a stream of strings: not re-encoded into Buffers, the client sends text. */
function textStream(texts: readonly string[]): Readable {
  const stream = new Readable({ encoding: 'utf8', read() {} })
  for (const text of texts) stream.push(text, 'utf8')
  stream.push(null)
  return stream
}
