import { QueueFactory } from '../shared/platform/queue-factory.js'
import { createRedis } from '../shared/platform/redis.js'
import type { RunningRole, Runtime } from '../shared/runtime.js'
import { publishTokensChanged } from '../shared/records/token-events.js'
import { BatchWriter } from './pipeline/batch-writer.js'
import { startRedriveWorker } from './pipeline/dead-letter-redrive-worker.js'
import { createIngestWorker } from './pipeline/ingest-worker.js'
import { TokenIdRegistry } from './pipeline/token-ids.js'

/**
 * The ingest workers. stop(): stop taking jobs, insert what is buffered so the jobs in
 * hand complete (and are acknowledged), then close the connections.
 */
export async function startIngestRole(runtime: Runtime): Promise<RunningRole> {
  const { config, clickhouse, tables } = runtime
  const logger = runtime.logger.child({ component: 'ingest' })
  const commands = createRedis(config.redis.url, 'commands', logger)
  const queues = new QueueFactory(config, logger)
  const writer = new BatchWriter(
    clickhouse,
    {
      flushRows: config.ingest.flushRows,
      flushMs: config.ingest.flushMs,
      flushWhenWaiting: config.ingest.concurrency,
    },
    logger,
  )
  const tokenIds = new TokenIdRegistry(clickhouse, tables, commands, config.redis.prefix)
  const onTokensStored = (addresses: readonly string[]) => publishTokensChanged(commands, config.redis.prefix, addresses)
  const worker = createIngestWorker(config, queues, { writer, tables, tokenIds, onTokensStored }, logger)
  await worker.waitUntilReady()
  logger.info('ingest worker started', { concurrency: config.ingest.concurrency })
  const redrives = await startRedriveWorker(config, queues, clickhouse, tables, logger).catch(async (err: unknown) => {
    await worker.close()
    throw err
  })

  return {
    name: 'ingest',
    async stop() {
      // A re-drive in hand finishes first: its records go through the ingest worker below.
      await redrives.close()
      const closing = worker.close()
      // Jobs in hand wait on the writer: insert at once instead of waiting for the timer.
      await writer.drain()
      await closing
      await writer.drain()
      await queues.close()
      await commands.quit().catch(() => commands.disconnect())
    },
  }
}
