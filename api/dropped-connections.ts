import type { Server } from 'node:net'
import type { Logger } from '../shared/platform/logger.js'

const LOG_EVERY_MS = 60_000

/**
 * Connections beyond server.maxConnections are closed by Node as they arrive ('drop').
 * Logged at most once a minute, with how many were dropped since the last line.
 */
export function logDroppedConnections(server: Server, logger: Logger, maxConnections: number): void {
  let dropped = 0
  let lastLoggedAt = 0
  server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now - lastLoggedAt < LOG_EVERY_MS) return
    logger.warn('connections dropped: too many open connections', { dropped, maxConnections })
    dropped = 0
    lastLoggedAt = now
  })
}
