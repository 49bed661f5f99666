/**
 * `npm run dead-letters -- list [--type T] [--limit N] [--pending]`
 * `npm run dead-letters -- redrive [--type T] [--id ID] [--limit N]`
 *
 * Reads the dead-letter table in ClickHouse. With embedded ClickHouse only one process
 * may open the store, so run it while the service is stopped (or use server mode).
 */
import { parseArgs } from 'node:util'
import { loadConfig, ConfigError } from '../shared/config.js'
import { openRuntime } from '../shared/bootstrap.js'
import { IngestProducer } from '../shared/ingest-producer.js'
import { isRecordType, recordTypes } from '../shared/records.js'
import { DeadLetterStore } from './dead-letter-store.js'
import { listDeadLetters, redriveDeadLetters } from './dead-letter-commands.js'

const USAGE = `usage:
  npm run dead-letters -- list [--type ${recordTypes.join('|')}] [--limit N] [--pending]
  npm run dead-letters -- redrive [--type T] [--id ID] [--limit N]`

class UsageError extends Error {}

const write = (line: string) => process.stdout.write(`${line}\n`)

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      id: { type: 'string' },
      limit: { type: 'string' },
      pending: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    write(USAGE)
    return 0
  }
  const [command, ...rest] = positionals
  if ((command !== 'list' && command !== 'redrive') || rest.length > 0) throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`)
  if (values.type !== undefined && !isRecordType(values.type) && command === 'redrive') {
    throw new UsageError(`--type must be one of ${recordTypes.join(', ')}`)
  }
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit must be a positive integer')

  const config = loadConfig()
  let runtime
  try {
    runtime = await openRuntime(config, 'dead-letters')
  } catch (err) {
    if (config.clickhouse.mode === 'embedded' && (err as { code?: unknown }).code === 'CHDB_CONNECTION') {
      process.stderr.write(
        `Cannot open the embedded ClickHouse store at ${config.clickhouse.path}: another process holds it ` +
          `(most likely the running service, npm start). Embedded ClickHouse allows one process per store: ` +
          `stop the service and run this command again, or run the service against a ClickHouse server (CLICKHOUSE_URL).\n`,
      )
      return 3
    }
    throw err
  }
  const store = new DeadLetterStore(runtime.clickhouse, runtime.tables)
  try {
    if (command === 'list') {
      await listDeadLetters(store, { type: values.type, limit: limit ?? 100, pendingOnly: values.pending }, write)
      return 0
    }
    const producer = new IngestProducer(config)
    try {
      await redriveDeadLetters(store, producer, { type: values.type, id: values.id, limit }, write)
    } finally {
      await producer.close()
    }
    return 0
  } finally {
    await runtime.clickhouse.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`)
      process.exit(2)
    }
    process.stderr.write(`dead-letters failed: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
