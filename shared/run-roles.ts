import type { Config } from './config.js'
import { openRuntime } from './bootstrap.js'
import type { RunningRole, Runtime } from './runtime.js'
import { onShutdownSignal } from './shutdown.js'

export type RoleStarter = (runtime: Runtime) => Promise<RunningRole>

/**
 * Starts roles in the given order in this process, and on a signal stops them in
 * reverse order (the API stops taking requests before the workers drain), then
 * closes ClickHouse.
 */
export async function runRoles(config: Config, name: string, starters: RoleStarter[]): Promise<Runtime> {
  const runtime = await openRuntime(config, name)
  const running: RunningRole[] = []
  const stopAll = async () => {
    for (const role of [...running].reverse()) {
      await role.stop()
      runtime.logger.info('stopped', { role: role.name })
    }
    await runtime.clickhouse.close()
  }
  onShutdownSignal(stopAll, runtime.logger, config.shutdownTimeoutMs)
  for (const start of starters) running.push(await start(runtime))
  return runtime
}
