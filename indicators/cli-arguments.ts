import { parseArgs } from 'node:util'
import { IndicatorJobNames } from '../shared/platform/queues.js'
import { address } from '../shared/records/records.js'

/** One line, printed with a mistake in the arguments. */
export const SHORT_USAGE = 'usage: npm run indicators -- --all | --token ADDRESS [--timeout SECONDS]   (--help for more)'

export const USAGE = `Usage: npm run --silent indicators -- (--all | --token ADDRESS) [--timeout SECONDS]

Asks the running indicator engine (npm start, or npm run start:indicators) to recompute
technical analysis, waits for the job and prints what it wrote. Talks only to Redis
(REDIS_URL, REDIS_PREFIX), so it works beside a running service.

Options:
  --all              recompute every token
  --token ADDRESS    recompute one token (its contract address, any case)
  --timeout SECONDS  how long to wait for the job (default 600 with --all, 60 with --token)
  --help, -h         show this help

Exit codes:
  0  the job finished (also when it wrote nothing: the output says why)
  1  the job failed, or no answer within the timeout (is the engine running?)
  2  bad arguments (nothing was asked)`

export type IndicatorRequest = { job: 'recompute-all' } | { job: 'recompute-token'; token: string }

export interface IndicatorArguments {
  request: IndicatorRequest
  timeoutMs: number
}

/** A mistake in how the command was called: reported with the usage and exit code 2. */
export class UsageError extends Error {}

export function parseIndicatorArguments(argv: string[]): IndicatorArguments | 'help' {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        all: { type: 'boolean', default: false },
        token: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }))
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  if (values.help) return 'help'
  if (values.all && values.token !== undefined) throw new UsageError('say --all or --token ADDRESS, not both')
  let request: IndicatorRequest
  if (values.all) request = { job: IndicatorJobNames.recomputeAll }
  else if (values.token !== undefined) {
    const parsed = address.safeParse(values.token)
    if (!parsed.success) throw new UsageError('--token needs a contract address ("0x" followed by 40 hexadecimal characters)')
    request = { job: IndicatorJobNames.recomputeToken, token: parsed.data }
  } else throw new UsageError('say --all or --token ADDRESS')
  let timeoutMs = request.job === 'recompute-all' ? 600_000 : 60_000
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout)
    if (!(seconds > 0)) throw new UsageError('--timeout needs a positive number of seconds')
    timeoutMs = seconds * 1000
  }
  return { request, timeoutMs }
}
