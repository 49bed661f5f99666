import type { RunningRole, Runtime } from '../shared/runtime.js'
import { startApiServer } from './api-server.js'

/** The read API on config.port. */
export async function startApiRole(runtime: Runtime): Promise<RunningRole> {
  const api = await startApiServer(runtime, runtime.config.port)
  runtime.logger.info('api listening', { url: `http://localhost:${api.port}` })
  return { name: 'api', stop: () => api.close() }
}
