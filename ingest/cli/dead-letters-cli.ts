/**
 * `npm run dead-letters -- list|counts|redrive [options]` (see USAGE). Works whether or not
 * the service runs: it opens the store itself when it can (server mode, or the embedded
 * store while the service is stopped); when the running service holds the embedded store,
 * it goes through the service's admin endpoints (ADMIN_TOKEN, API_URL).
 */
import { parseArgs } from 'node:util'
import { openRuntime } from '../../shared/bootstrap.js'
import { ConfigError, loadConfig, type Config } from '../../shared/platform/config.js'
import type { DeadLetterRedriveJobData } from '../../shared/platform/queues.js'
import { RECORD_TYPES } from '../../shared/platform/queues.js'
import { AdminApiAccess, AdminApiError, StoreAccess, type DeadLetterAccess } from './dead-letter-access.js'
import { listDeadLetters, redrive, showCounts } from './dead-letter-commands.js'

const USAGE = `usage: npm run dead-letters -- <command> [options]

commands:
  list      a page of dead letters, newest first: id, type, time, source, line (for a
            backfill file), reason, and the record as received (a file's line as read)
              --type ${RECORD_TYPES.join('|')}  --reason TEXT  --source TEXT  (exact matches)
              --pending            only those not re-driven yet
              --limit N            1 to 500, default 50
              --offset N           default 0
  counts    how many, by record type and by reason (the most frequent first)
              --reasons N          how many reasons to show, 1 to 500, default 20
  redrive   send dead letters through the ingest queue again (validated again: a valid
            record is stored once, an invalid one stays a dead letter); streamed in pages
              --all                every pending dead letter
              --id ID              this one (repeatable), even if re-driven before
              --type T, --reason TEXT, --source TEXT   the pending ones matching
              --no-wait            through the service: do not wait for the outcome

options:
  --via-api    use the running service's admin endpoints even if the store can be opened
  -h, --help   this text

While \`npm start\` holds the embedded store, the command uses the service's admin endpoints:
set ADMIN_TOKEN (the service's) and, if the API is not at http://127.0.0.1:PORT, API_URL.

exit codes:
  0  done
  1  failure (ClickHouse, Redis or the service failed; the re-drive failed)
  2  bad arguments or configuration
  3  the embedded store is held by the running service and its admin endpoints cannot be
     used (ADMIN_TOKEN not set, or the service does not answer at API_URL / has them off)`

class UsageError extends Error {}
class UnreachableError extends Error {}

const write = (line: string) => process.stdout.write(`${line}\n`)

type Command =
  | { name: 'list'; filter: { type?: string; reason?: string; source?: string; pendingOnly: boolean }; limit: number; offset: number }
  | { name: 'counts'; reasons: number }
  | { name: 'redrive'; selection: DeadLetterRedriveJobData; wait: boolean }

function parseCommand(argv: string[]): { command: Command; viaApi: boolean } | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      reason: { type: 'string' },
      source: { type: 'string' },
      id: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
      pending: { type: 'boolean', default: false },
      limit: { type: 'string' },
      offset: { type: 'string' },
      reasons: { type: 'string' },
      'no-wait': { type: 'boolean', default: false },
      'via-api': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) return 'help'
  const [name, ...rest] = positionals
  if (rest.length > 0 || (name !== 'list' && name !== 'counts' && name !== 'redrive')) {
    throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`)
  }
  const viaApi = values['via-api']
  if (name === 'list') {
    return {
      viaApi,
      command: {
        name,
        filter: { type: values.type, reason: values.reason, source: values.source, pendingOnly: values.pending },
        limit: integer('--limit', values.limit, 50, 1, 500),
        offset: integer('--offset', values.offset, 0, 0, Number.MAX_SAFE_INTEGER),
      },
    }
  }
  if (name === 'counts') return { viaApi, command: { name, reasons: integer('--reasons', values.reasons, 20, 1, 500) } }
  const selection: DeadLetterRedriveJobData = {
    ...(values.id ? { ids: values.id } : {}),
    ...(values.type !== undefined ? { type: values.type } : {}),
    ...(values.reason !== undefined ? { reason: values.reason } : {}),
    ...(values.source !== undefined ? { source: values.source } : {}),
  }
  if (!values.all && Object.keys(selection).length === 0) {
    throw new UsageError('redrive: name what to re-drive: --all, --id, --type, --reason or --source')
  }
  if (values.all && Object.keys(selection).length > 0) throw new UsageError('redrive: --all takes no other selection')
  return { viaApi, command: { name, selection, wait: !values['no-wait'] } }
}

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(value >= min && value <= max)) throw new UsageError(`${flag} must be an integer from ${min} to ${max}`)
  return value
}

async function openAccess(config: Config, viaApi: boolean): Promise<DeadLetterAccess> {
  const api = () => {
    if (config.admin.token === undefined) {
      throw new UnreachableError(
        `Cannot open the embedded ClickHouse store at ${config.clickhouse.mode === 'embedded' ? config.clickhouse.path : ''}: ` +
          `the running service (npm start) holds it, and ADMIN_TOKEN is not set, so its admin endpoints cannot be used. ` +
          `Start the service with ADMIN_TOKEN set and run this command with the same ADMIN_TOKEN (and API_URL if the API ` +
          `is not at ${config.admin.apiUrl}), or stop the service and run it again.`,
      )
    }
    return new AdminApiAccess(config.admin.apiUrl, config.admin.token)
  }
  if (viaApi) return api()
  try {
    const runtime = await openRuntime(config, 'dead-letters')
    return new StoreAccess(config, runtime.clickhouse, runtime.tables)
  } catch (err) {
    if (config.clickhouse.mode === 'embedded' && (err as { code?: unknown }).code === 'CHDB_CONNECTION') return api()
    throw err
  }
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv)
  if (parsed === 'help') {
    write(USAGE)
    return 0
  }
  const { command, viaApi } = parsed
  const config = loadConfig()
  const access = await openAccess(config, viaApi)
  try {
    if (access instanceof AdminApiAccess) process.stderr.write(`(the store is held: going through ${access.via})\n`)
    switch (command.name) {
      case 'list':
        await listDeadLetters(access, command.filter, command, write)
        break
      case 'counts':
        await showCounts(access, command.reasons, write)
        break
      case 'redrive':
        await redrive(access, command.selection, command.wait, write)
        break
    }
    return 0
  } catch (err) {
    // The service not answering, or its admin endpoints off: the store is out of reach.
    if (err instanceof AdminApiError && /does not answer|: 404 /.test(err.message) && !/redrives\//.test(err.message)) {
      throw new UnreachableError(err.message)
    }
    throw err
  } finally {
    await access.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`)
      process.exit(2)
    }
    if (err instanceof UnreachableError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(3)
    }
    process.stderr.write(`dead-letters failed: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
