import type { Logger } from './logger.js'

/**
 * On SIGTERM or SIGINT runs `stop` once (stop taking work, flush, acknowledge, close).
 * A second signal, or `timeoutMs` without finishing, forces the exit.
 */
export function onShutdownSignal(stop: () => Promise<void>, logger: Logger, timeoutMs: number): void {
  let stopping = false
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn('second signal: forcing exit', { signal })
      process.exit(1)
    }
    stopping = true
    logger.info('shutting down', { signal })
    const timer = setTimeout(() => {
      logger.error('shutdown timed out: forcing exit', { timeoutMs })
      process.exit(1)
    }, timeoutMs)
    timer.unref()
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { err })
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', handle)
  process.on('SIGINT', handle)
}
