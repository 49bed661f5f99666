import type { ServerOptions } from 'node:http'
import type { HttpServerConfig } from '../shared/platform/config.js'

/**
 * Node checks the header and request deadlines on a timer (30 s by default, which would
 * let a slow client hold a connection up to 30 s past its deadline): check at a quarter
 * of the header deadline, between 100 ms and 1 s.
 */
function checkingIntervalMs(config: HttpServerConfig): number {
  return Math.min(1_000, Math.max(100, Math.floor(config.headersTimeoutMs / 4)))
}

/** The timeouts of the API's HTTP server (the connection cap is set on the server: maxConnections). */
export function httpServerOptions(config: HttpServerConfig): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(config),
  }
}
