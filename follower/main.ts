/**
 * `npm run follow -- [--from-block N]`: follows the node at RPC_URL into the ingest queue
 * (history from N, or from the checkpoint, then live). Run it beside the service (`npm start`),
 * whose ingest workers store what it produces.
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../shared/platform/config.js'
import { createLogger } from '../shared/platform/logger.js'
import { progressPrinter } from './progress-line.js'
import { startFollowerRole } from './role.js'

const { values } = parseArgs({ options: { 'from-block': { type: 'string' } } })
const fromBlock = values['from-block'] === undefined ? null : Number(values['from-block'])
if (fromBlock !== null && !(Number.isInteger(fromBlock) && fromBlock >= 0)) {
  process.stderr.write(`--from-block must be a block number (got "${values['from-block']}")\n`)
  process.exit(2)
}
const config = loadConfig()
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
