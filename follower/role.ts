import type { Config } from '../shared/platform/config.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import type { Logger } from '../shared/platform/logger.js'
import { createRedis } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { ChainFollower, type FollowerProgress } from './chain-follower.js'
import { ChainRpc } from './chain-rpc.js'

export interface FollowerRoleOptions {
  fromBlock?: number | null
  onProgress?: (p: FollowerProgress) => void
}

/**
 * The follower role: reads the node at RPC_URL and produces records into the ingest queue.
 * It needs Redis and the node only (never ClickHouse), so it runs beside a service that
 * holds an embedded store as well as inside it.
 */
export async function startFollowerRole(
  context: { config: Config; logger: Logger },
  options: FollowerRoleOptions = {},
): Promise<RunningRole & { follower: ChainFollower }> {
  const { config } = context
  const url = config.follower.rpcUrl
  if (url === null) throw new Error('RPC_URL is not set: the follower has no node to read')
  const logger = context.logger.child({ component: 'follower' })
  const producer = new IngestProducer(config)
  const redis = createRedis(config.redis.url, 'commands')
  const rpc = new ChainRpc(url, logger)
  const follower = new ChainFollower({
    config: config.follower,
    rpc,
    producer,
    redis,
    redisPrefix: config.redis.prefix,
    logger,
    fromBlock: options.fromBlock ?? null,
    onProgress: options.onProgress,
  })
  try {
    await follower.start()
  } catch (err) {
    await producer.close()
    redis.disconnect()
    throw err
  }
  return {
    name: 'follower',
    follower,
    async stop() {
      await follower.stop()
      await producer.close()
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
