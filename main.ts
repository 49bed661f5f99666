/**
 * `npm start`: every role in one process, the way embedded ClickHouse requires
 * (one process per data directory). Server mode runs each role on its own instead.
 */
import { loadConfig } from './shared/config.js'
import { runRoles } from './shared/run-roles.js'
import { startApiRole } from './api/role.js'

const config = loadConfig()
await runRoles(config, 'all', [startApiRole])
