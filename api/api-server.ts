import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRedis } from '../shared/redis.js'
import type { Runtime } from '../shared/runtime.js'
import { createApp } from './app.js'
import { QueueOnDemandComputation } from './technical-analysis-on-demand.js'
import { TokenDirectory } from './token-directory.js'

export interface ApiServer {
  server: Server
  port: number
  /** Stops taking requests, lets those in flight finish, then closes the Redis connections. */
  close(): Promise<void>
}

/** The API with the connections it owns, listening on `port` (0: any free port). */
export async function startApiServer(runtime: Runtime, port: number, host?: string): Promise<ApiServer> {
  const { config, logger } = runtime
  const redis = createRedis(config.redis.url, 'commands')
  let redisDown = false
  redis.on('error', (err: Error) => {
    // Logged once per outage: ioredis retries in the background and would repeat it.
    if (!redisDown) logger.warn('redis unavailable', { err })
    redisDown = true
  })
  redis.on('ready', () => {
    redisDown = false
  })
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
  const onDemand = new QueueOnDemandComputation(config.redis, config.indicators.onDemandWaitMs, logger)
  const app = createApp({
    clickhouse: runtime.clickhouse,
    tables: runtime.tables,
    logger,
    redis,
    redisPrefix: config.redis.prefix,
    onDemand,
    tokenDirectory,
  })
  const server = createServer(app)
  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    const onListening = () => {
      server.off('error', reject)
      resolve()
    }
    if (host === undefined) server.listen(port, onListening)
    else server.listen(port, host, onListening)
  })
  try {
    await listening
  } catch (err) {
    await onDemand.close()
    await tokenDirectory.close()
    redis.disconnect()
    throw err
  }
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      await onDemand.close()
      await tokenDirectory.close()
      redis.disconnect()
    },
  }
}
