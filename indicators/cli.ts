/**
 * `npm run indicators -- --all` | `--token ADDRESS` [--timeout SECONDS]: asks the running
 * indicator engine (npm start, or npm run start:indicators) to recompute, waits for the
 * job and prints what was written. It talks only to Redis. `--help`: usage and exit codes.
 */
import { parseIndicatorArguments, SHORT_USAGE, USAGE, UsageError, type IndicatorArguments } from './cli-arguments.js'
import { loadConfig } from '../shared/platform/config.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobResult } from '../shared/platform/queues.js'

let args: IndicatorArguments
try {
  const parsed = parseIndicatorArguments(process.argv.slice(2))
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  args = parsed
} catch (err) {
  if (!(err instanceof UsageError)) throw err
  process.stderr.write(`indicators: ${err.message}\n${SHORT_USAGE}\n`)
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
  const skipped = result.skipped ?? 0
  // A token whose computation was under way (its lock held) is left to it, not computed twice.
  const underWay = skipped > 0 ? `; ${skipped} token${skipped === 1 ? ' was' : 's were'} being computed by the engine already, left to it` : ''
  if (result.written > 0) {
    console.log(`wrote ${result.written} technical-analysis result${result.written === 1 ? '' : 's'} in ${seconds} s${underWay}`)
  } else {
    console.log(`wrote nothing${result.reason ? `: ${result.reason}` : ''}${underWay}`)
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
