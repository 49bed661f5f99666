/**
 * `npm run follow -- [--from-block N]`: follows the node at RPC_URL into the ingest queue
 * (history from N, or from the checkpoint, then live). Run it beside the service (`npm start`),
 * whose ingest workers store what it produces.
 */
import { integerOption, readCommandLine, UsageError } from '../shared/platform/command-line.js'
import { loadConfig } from '../shared/platform/config.js'

const USAGE = `Usage: npm run follow -- [--from-block N]

Follows the chain at RPC_URL into the ingest queue: its history from the checkpoint (or from
block N), then live, finalized FINALITY_DEPTH blocks behind the head. Run it beside the
service (npm start), whose ingest workers store what it produces; npm run devnet prints the
settings (RPC_URL, the pool factories) for a local chain.

Options:
  --from-block N  start the history at block N instead of the checkpoint
  --help, -h      show this help

Exit codes:
  0  stopped with Ctrl-C (SIGINT) or SIGTERM
  1  an error (the node or Redis out of reach)
  2  bad arguments or settings (nothing was followed)`

const SHORT_USAGE = 'usage: npm run follow -- [--from-block N]   (--help for more)'

const { fromBlock, config } = readCommandLine(
  { name: 'follow', usage: USAGE, shortUsage: SHORT_USAGE },
  { 'from-block': { type: 'string' } },
  (values) => {
    const fromBlock = values['from-block'] === undefined ? null : integerOption('from-block', values['from-block'], 0, Number.MAX_SAFE_INTEGER)
    const config = loadConfig()
    if (config.follower.rpcUrl === null) throw new UsageError('RPC_URL is not set: the follower has no node to read (npm run devnet prints the settings of a local chain)')
    return { fromBlock, config }
  },
)
// Loaded once the arguments are read: --help and a mistake answer without loading the chain code.
const { createLogger } = await import('../shared/platform/logger.js')
const { progressPrinter } = await import('./progress-line.js')
const { startFollowerRole } = await import('./role.js')
const logger = createLogger(config.logLevel, { role: 'follower' })
const role = await startFollowerRole(
  { config, logger },
  { fromBlock, onProgress: process.stderr.isTTY ? progressPrinter((l) => process.stderr.write(l)) : undefined },
)
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await role.stop()
  logger.info('follower stopped', role.follower.stats.snapshot())
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
