import type { Logger } from './logger.js'

/** Where a process hears its signals and crashes: `process`, or a stand-in in tests. */
export type ProcessEvents = Pick<NodeJS.EventEmitter, 'on'>

export interface ShutdownOptions {
  /** Stops what runs (the roles, in order) and releases what they share. */
  stop: () => Promise<void>
  logger: Logger
  /** A stop that takes longer is cut short: forced exit 1. */
  timeoutMs: number
  /** process.exit in production. */
  exit: (code: number) => void
}

export type ShutdownCause =
  | { kind: 'signal'; signal: string }
  | { kind: 'crash'; origin: 'unhandledRejection' | 'uncaughtException' | 'start-up'; err: unknown }

/**
 * Runs `stop` once, whatever asked for it first (a signal, a crash, a role that failed to
 * start), then exits: 0 after a signal's clean stop, 1 after a crash, a failed stop or the
 * timeout. A second signal forces the exit at once. A crash during a stop already under
 * way is logged and makes the exit 1, without a second stop.
 */
export class Shutdown {
  private stopping?: Promise<void>
  private exitCode = 0
  private exited = false

  constructor(private readonly options: ShutdownOptions) {}

  /** Whether a stop has begun (nothing more should start). */
  get begun(): boolean {
    return this.stopping !== undefined
  }

  /** Resolves once `exit` has been called (it never returns with process.exit). */
  begin(cause: ShutdownCause): Promise<void> {
    const { logger } = this.options
    if (cause.kind === 'crash') {
      this.exitCode = 1
      logger.error(`${cause.origin}: stopping the roles`, {
        err: cause.err,
        stack: cause.err instanceof Error ? cause.err.stack : undefined,
      })
    }
    if (this.stopping) {
      if (cause.kind === 'signal') {
        logger.warn('second signal: forcing exit', { signal: cause.signal })
        this.exit(1)
      }
      return this.stopping
    }
    if (cause.kind === 'signal') logger.info('shutting down', { signal: cause.signal })
    this.stopping = this.run()
    return this.stopping
  }

  private async run(): Promise<void> {
    const { logger, timeoutMs } = this.options
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<'timed-out'>((resolve) => {
      timer = setTimeout(() => resolve('timed-out'), timeoutMs)
    })
    const stopped = this.options.stop().then(
      () => 'stopped' as const,
      (err: unknown) => {
        logger.error('shutdown failed', { err })
        return 'failed' as const
      },
    )
    const outcome = await Promise.race([stopped, timedOut])
    clearTimeout(timer)
    if (outcome === 'timed-out') logger.error('shutdown timed out: forcing exit', { timeoutMs })
    this.exit(outcome === 'stopped' ? this.exitCode : 1)
  }

  private exit(code: number): void {
    if (this.exited) return
    this.exited = true
    this.options.exit(code)
  }
}

/**
 * SIGTERM and SIGINT stop the process gracefully; an unhandled rejection or an uncaught
 * exception is logged and stops it the same way (the roles drain), then it exits 1.
 * Without these, Node would exit at once on a crash, dropping what the workers hold.
 */
export function installShutdownHandlers(shutdown: Shutdown, events: ProcessEvents): void {
  const onSignal = (signal: string) => void shutdown.begin({ kind: 'signal', signal })
  events.on('SIGTERM', onSignal)
  events.on('SIGINT', onSignal)
  events.on('unhandledRejection', (reason: unknown) => void shutdown.begin({ kind: 'crash', origin: 'unhandledRejection', err: reason }))
  events.on('uncaughtException', (err: unknown) => void shutdown.begin({ kind: 'crash', origin: 'uncaughtException', err }))
}
