/** `npm run start:indicators`: the indicator engine alone (server mode). */
import { loadConfig } from '../shared/platform/config.js'
import { runRoles } from '../shared/run-roles.js'
import { startIndicatorsRole } from './role.js'

await runRoles(loadConfig(), 'indicators', [startIndicatorsRole])
