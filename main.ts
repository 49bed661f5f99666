/**
 * `npm start`: every role in one process, the way embedded ClickHouse requires
 * (one process per data directory). Server mode runs each role on its own instead.
 */
import { loadConfig } from './shared/config.js'
import { runRoles } from './shared/run-roles.js'
import { startApiRole } from './api/role.js'
import { startIndicatorsRole } from './indicators/role.js'
import { recomputeAllAfterIngestJobs } from './indicators/recompute-after-ingest.js'
import { loadSampleDataOnFirstStart } from './ingest/sample-data/load-sample-data.js'

const config = loadConfig()
const runtime = await runRoles(config, 'all', [startApiRole, startIndicatorsRole])
// After the roles are up; embedded mode only, and only into an empty store.
const sample = await loadSampleDataOnFirstStart(runtime)
if (sample) void recomputeAllAfterIngestJobs(runtime, sample.jobIds)
