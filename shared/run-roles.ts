import type { Config } from './platform/config.js'
import { openRuntime } from './bootstrap.js'
import type { Logger } from './platform/logger.js'
import { alignRedisWithStore } from './redis-store-binding.js'
import type { RunningRole, Runtime } from './runtime.js'
import { installShutdownHandlers, Shutdown, type ProcessEvents } from './platform/shutdown.js'
import { StoreTooOldError } from './storage/migrate.js'

export type RoleStarter<C = Runtime> = (context: C) => Promise<RunningRole>

export interface RoleSupervisorOptions {
  /** `process` in production: its signals and crashes stop the roles. */
  events: ProcessEvents
  /** `process.exit` in production. */
  exit: (code: number) => void
  logger: Logger
  /** SHUTDOWN_TIMEOUT_MS: a stop that takes longer is cut short (exit 1). */
  timeoutMs: number
  /** Released once every role has stopped (ClickHouse). */
  close: () => Promise<void>
}

export interface RunningRoles {
  /** Stops the roles as a crash does (logged, drained in order, exit 1), e.g. for a failure in the entry point. */
  crash(err: unknown): Promise<void>
}

/**
 * Starts roles in the given order and, on a signal, an unhandled rejection or an uncaught
 * exception, stops those started in reverse order (the API stops taking requests before
 * the workers drain), releases what they share, and exits (non-zero after a crash). A role
 * that fails to start stops those already started the same way, then the process exits 1
 * (and the promise rejects with the role's error). A role whose stop fails is logged and
 * the others are still stopped.
 */
export async function startRoles<C>(context: C, starters: Array<RoleStarter<C>>, options: RoleSupervisorOptions): Promise<RunningRoles> {
  const { logger } = options
  const running: RunningRole[] = []
  // The role being started, if any: a stop begun meanwhile waits for it, then stops it first.
  let starting: Promise<unknown> = Promise.resolve()
  const stopAll = async () => {
    await starting.catch(() => undefined)
    const failures: unknown[] = []
    for (const role of [...running].reverse()) {
      try {
        await role.stop()
        logger.info('stopped', { stopped: role.name })
      } catch (err) {
        logger.error('role failed to stop', { stopped: role.name, err })
        failures.push(err)
      }
    }
    await options.close()
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} role(s) failed to stop`)
  }
  const shutdown = new Shutdown({ stop: stopAll, logger, timeoutMs: options.timeoutMs, exit: options.exit })
  installShutdownHandlers(shutdown, options.events)
  for (const start of starters) {
    // A crash or a signal while starting: the roles started so far are being stopped.
    if (shutdown.begun) break
    const pending = start(context)
    starting = pending
    try {
      running.push(await pending)
    } catch (err) {
      logger.error('a role failed to start: stopping those already started', { err, started: running.map((r) => r.name) })
      await shutdown.begin({ kind: 'crash', origin: 'start-up', err })
      throw err
    }
  }
  return { crash: (err) => shutdown.begin({ kind: 'crash', origin: 'start-up', err }) }
}

/**
 * Opens the store (migrations applied), ties the Redis state to it, then starts and
 * supervises the roles in this process. A store too old to upgrade is the operator's to
 * rebuild, not a fault: its message alone, on one line, and exit 1.
 */
export async function runRoles(config: Config, name: string, starters: RoleStarter[]): Promise<Runtime & RunningRoles> {
  const runtime = await openRuntime(config, name).catch((err: unknown) => {
    if (!(err instanceof StoreTooOldError)) throw err
    process.stderr.write(`cannot start: ${err.message}\n`)
    return process.exit(1)
  })
  // Redis state of another store (a deleted embedded data directory) is cleared before any role reads it.
  await alignRedisWithStore(runtime)
  const roles = await startRoles(runtime, starters, {
    events: process,
    exit: (code) => process.exit(code),
    logger: runtime.logger,
    timeoutMs: config.shutdownTimeoutMs,
    close: () => runtime.clickhouse.close(),
  })
  return { ...runtime, ...roles }
}
