import { parseArgs } from 'node:util'
import { isRecordType } from '../../../shared/records/records.js'
import { RECORD_TYPES, type RecordType } from '../../../shared/platform/queues.js'
import type { FileFormat } from './open-file.js'

export interface BackfillArguments {
  type: RecordType
  files: string[]
  batchSize: number
  wait: boolean
  format?: FileFormat
}

/** A mistake in how the command was called: reported with the usage and exit code 2. */
export class UsageError extends Error {}

export const usage = `Usage: npm run backfill -- --type <${RECORD_TYPES.join('|')}> [options] FILE...

Reads NDJSON (.ndjson, .jsonl), gzip-compressed NDJSON (.ndjson.gz, .jsonl.gz) or CSV
with a header row (.csv, .csv.gz; nested fields as token_sold.contract_address) and
enqueues the records in batches for the ingest workers.

Options:
  --type, -t TYPE      record type of every file: ${RECORD_TYPES.join(', ')} (required)
  --batch-size N       records per queued job (default 5000)
  --format FORMAT      ndjson or csv, overriding the file extension
  --wait               wait until the workers processed every batch, then print accepted/rejected
  --help, -h           show this help

Exit codes: 0 done, 1 a batch failed permanently, a batch disappeared from Redis (--wait: its records are
not confirmed) or an error occurred, 2 bad arguments or unreadable file.`

export function parseBackfillArguments(argv: string[]): BackfillArguments | 'help' {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        type: { type: 'string', short: 't' },
        'batch-size': { type: 'string' },
        format: { type: 'string' },
        wait: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  const { values, positionals } = parsed
  if (values.help) return 'help'
  if (values.type === undefined) throw new UsageError(`--type is required (one of: ${RECORD_TYPES.join(', ')})`)
  if (!isRecordType(values.type)) {
    throw new UsageError(`unknown --type "${values.type}" (expected one of: ${RECORD_TYPES.join(', ')})`)
  }
  const batchSize = values['batch-size'] === undefined ? 5_000 : Number(values['batch-size'])
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    throw new UsageError(`--batch-size must be an integer from 1 to 100000, got "${values['batch-size']}"`)
  }
  if (values.format !== undefined && values.format !== 'ndjson' && values.format !== 'csv') {
    throw new UsageError(`--format must be ndjson or csv, got "${values.format}"`)
  }
  if (positionals.length === 0) throw new UsageError('no files given')
  return { type: values.type, files: positionals, batchSize, wait: values.wait, format: values.format }
}
