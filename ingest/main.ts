/** `npm run start:ingest`: the ingest workers alone (server mode). */
import { loadConfig } from '../shared/platform/config.js'
import { runRoles } from '../shared/run-roles.js'
import { startIngestRole } from './role.js'

await runRoles(loadConfig(), 'ingest', [startIngestRole])
