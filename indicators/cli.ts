/**
 * `npm run indicators -- --all` | `--token ADDRESS` [--timeout SECONDS]: asks the running
 * indicator engine (npm start, or npm run start:indicators) to recompute, waits for the
 * job and prints what was written. It talks only to Redis.
 */
import { loadConfig } from '../shared/config.js'
import { QueueFactory } from '../shared/queue-factory.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobResult } from '../shared/queues.js'
import { address } from '../shared/records.js'

const USAGE = 'usage: npm run indicators -- --all | --token ADDRESS [--timeout SECONDS]'

type Request = { job: 'recompute-all' } | { job: 'recompute-token'; token: string }

function parseArguments(argv: string[]): { request: Request; timeoutMs: number } {
  let request: Request | undefined
  let timeoutMs: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--all') request = { job: IndicatorJobNames.recomputeAll }
    else if (arg === '--token') {
      const parsed = address.safeParse(argv[++i])
      if (!parsed.success) throw new Error(`--token needs a contract address ("0x" followed by 40 hexadecimal characters)`)
      request = { job: IndicatorJobNames.recomputeToken, token: parsed.data }
    } else if (arg === '--timeout') {
      const seconds = Number(argv[++i])
      if (!(seconds > 0)) throw new Error('--timeout needs a positive number of seconds')
      timeoutMs = seconds * 1000
    } else throw new Error(`unknown argument ${arg}`)
  }
  if (!request) throw new Error('say --all or --token ADDRESS')
  return { request, timeoutMs: timeoutMs ?? (request.job === 'recompute-all' ? 600_000 : 60_000) }
}

let args: ReturnType<typeof parseArguments>
try {
  args = parseArguments(process.argv.slice(2))
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`)
  process.exit(2)
}

const config = loadConfig()
const queues = new QueueFactory(config)
const queue = queues.queue(QueueNames.indicators)
const events = queues.events(QueueNames.indicators)
let exitCode = 0
try {
  await events.waitUntilReady()
  const started = Date.now()
  const { request } = args
  const job =
    request.job === 'recompute-all'
      ? await queue.add(IndicatorJobNames.recomputeAll, {})
      : await queue.add(IndicatorJobNames.recomputeToken, { contract_address: request.token })
  console.log(`enqueued ${request.job}${'token' in request ? ` for ${request.token}` : ''} (job ${job.id}); waiting…`)
  const result: IndicatorJobResult = await job.waitUntilFinished(events, args.timeoutMs)
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  if (result.written > 0) {
    console.log(`wrote ${result.written} technical-analysis result${result.written === 1 ? '' : 's'} in ${seconds} s`)
  } else {
    console.log(`wrote nothing${result.reason ? `: ${result.reason}` : ''}`)
  }
} catch (err) {
  const message = err instanceof Error ? err.message : String(err)
  console.error(
    /timed out|ttl/i.test(message)
      ? `no answer within ${args.timeoutMs / 1000} s: is the indicator engine running (npm start, or npm run start:indicators)?`
      : `failed: ${message}`,
  )
  exitCode = 1
} finally {
  await queues.close()
}
process.exit(exitCode)
