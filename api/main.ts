/** `npm run start:api`: the read API alone, against a ClickHouse server (CLICKHOUSE_URL). */
import { loadConfig } from '../shared/platform/config.js'
import { runRoles } from '../shared/run-roles.js'
import { startApiRole } from './role.js'

await runRoles(loadConfig(), 'api', [startApiRole])
