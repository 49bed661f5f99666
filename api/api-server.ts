import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'
import { createRedis } from '../shared/platform/redis.js'
import type { Runtime } from '../shared/runtime.js'
import { readAccess } from './access-control.js'
import { createAdmin } from './admin/admin-router.js'
import { createApp } from './app.js'
import { answerClientError } from './client-error-response.js'
import { ConnectionDrainer } from './connection-draining.js'
import { logDroppedConnections } from './dropped-connections.js'
import { healthRouter } from './health-routes.js'
import { httpServerOptions } from './http-server-options.js'
import { checkReadiness } from './readiness.js'
import { createRootApp } from './root-app.js'
import { QueueOnDemandComputation } from './technical-analysis-on-demand.js'
import { TokenDirectory } from './token-directory.js'
import { metricsRouter } from './metrics-route.js'
import { QueueMetrics } from './queue-metrics.js'

/** How long GET /ready waits for each dependency. */
const READINESS_CHECK_TIMEOUT_MS = 2_000

export interface ApiServer {
  server: Server
  port: number
  /** The read API app, whose router the server's app runs (tests list its routes: contract/mounted-routes.ts). */
  api: Express
  /**
   * Stops taking requests, closes idle keep-alive connections, lets the requests in
   * flight finish for up to HTTP_SHUTDOWN_GRACE_MS (then closes every connection), then
   * closes the Redis connections.
   */
  close(): Promise<void>
}

/** The API with the connections it owns, listening on `port` (0: any free port) and `host` (default: HOST). */
export async function startApiServer(runtime: Runtime, port: number, host?: string): Promise<ApiServer> {
  const { config, logger } = runtime
  // The connection policy of shared/platform/redis.ts: an outage is logged once, as is the recovery.
  const redis = createRedis(config.redis.url, 'commands', logger)
  const tokenDirectory = await TokenDirectory.start({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    redis,
    redisPrefix: config.redis.prefix,
    refreshMs: config.tokenDirectory.refreshMs,
    logger,
  }).catch((err: unknown) => {
    redis.disconnect()
    throw err
  })
  const closing = new AbortController()
  const onDemand = new QueueOnDemandComputation(config, config.indicators.onDemandWaitMs, logger, config.indicators.negativeCacheMs)
  const app = createApp({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    logger,
    redis,
    redisPrefix: config.redis.prefix,
    onDemand,
    tokenDirectory,
    seriesCaching: { maxAgeS: config.httpApi.closedSeriesMaxAgeS, shared: config.httpApi.apiKeys.length === 0 },
    smartMoney: config.smartMoney,
    streams: { ...config.swapStream, offered: config.storage.cluster === null },
    closing: closing.signal,
  })
  const health = healthRouter({
    logger,
    readiness: () =>
      checkReadiness({
        clickhouse: runtime.clickhouse,
        tables: runtime.tables,
        redis,
        timeoutMs: READINESS_CHECK_TIMEOUT_MS,
      }),
  })
  const queueMetrics = new QueueMetrics(config, runtime.clickhouse, runtime.tables, logger)
  const metrics = metricsRouter(queueMetrics)
  const admin = createAdmin({ config, clickhouse: runtime.clickhouse, tables: runtime.tables, logger })
  const server = createServer(httpServerOptions(config.http), createRootApp({ api: app, health, metrics, admin: admin.router, access: readAccess(config.httpApi, redis, config.redis.prefix, logger), logger }))
  server.maxConnections = config.http.maxConnections
  server.on('clientError', answerClientError)
  logDroppedConnections(server, logger, config.http.maxConnections)
  const drainer = new ConnectionDrainer(server)
  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host ?? config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  try {
    await listening
  } catch (err) {
    await admin.close()
    await queueMetrics.close()
    await onDemand.close()
    await tokenDirectory.close()
    redis.disconnect()
    throw err
  }
  return {
    server,
    port: (server.address() as AddressInfo).port,
    api: app,
    async close() {
      closing.abort()
      const grace = setTimeout(() => {
        logger.warn('requests still in flight after the shutdown grace period: closing their connections', {
          graceMs: config.http.shutdownGraceMs,
        })
        server.closeAllConnections()
      }, config.http.shutdownGraceMs)
      try {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          drainer.begin()
        })
      } finally {
        clearTimeout(grace)
      }
      await admin.close()
      await queueMetrics.close()
      await onDemand.close()
      await tokenDirectory.close()
      redis.disconnect()
    },
  }
}
