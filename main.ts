/**
 * `npm start`: every role in one process, the way embedded ClickHouse requires
 * (one process per data directory). Server mode runs each role on its own instead.
 */
import { loadConfig } from './shared/platform/config.js'
import { runRoles } from './shared/run-roles.js'
import { createLogger } from './shared/platform/logger.js'
import { ensureLocalRedis, RedisUnavailableError } from './shared/platform/redis-bootstrap.js'
import { startIngestRole } from './ingest/role.js'
import { startApiRole } from './api/role.js'
import { startIndicatorsRole } from './indicators/role.js'
import { startFollowerRole } from './follower/role.js'
import type { Runtime } from './shared/runtime.js'
import { recomputeAllAfterIngestJobs } from './indicators/recompute-after-ingest.js'
import { loadSampleDataOnFirstStart } from './ingest/sample-data/load-sample-data.js'

const config = loadConfig()
if (config.clickhouse.mode === 'embedded') {
  // A fresh machine: start a private redis-server if none answers, or say how to get one.
  try {
    await ensureLocalRedis(config.redis, createLogger(config.logLevel, { role: 'all' }))
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  }
}
// Stopped in reverse: the API stops taking requests first, then the engine, then ingest drains.
// With RPC_URL set, the chain follower starts last and so stops first: its last step's jobs
// are acknowledged while the ingest workers still run.
const followerRole = config.follower.rpcUrl !== null ? [(r: Runtime) => startFollowerRole(r)] : []
const runtime = await runRoles(config, 'all', [startIngestRole, startIndicatorsRole, startApiRole, ...followerRole])
// After the roles are up; embedded mode only, and only into an empty store. A failure here
// stops the roles as a crash does (drained in order, exit 1), as does any later unhandled
// rejection (runRoles installs the handlers).
try {
  const sample = await loadSampleDataOnFirstStart(runtime)
  if (sample) void recomputeAllAfterIngestJobs(runtime, sample.jobIds)
} catch (err) {
  await runtime.crash(err)
}
