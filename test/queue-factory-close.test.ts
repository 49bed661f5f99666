import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../shared/platform/config.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'
import { recordingLogger } from './support/recording-logger.js'

/**
 * Closing queues whose Redis never answered (an API started while Redis is down, then
 * stopped: its queue metrics hold a queue per queue name, with the connection policy's
 * logger). BullMQ's start-up of each queue waits for the connection; if the connection ends
 * after the queue was closed, that failure must not surface as an unhandled rejection,
 * which stops the service (shared/run-roles.ts). Closed at many moments of the attempts,
 * the earlier code left 3 in 40 (and CI saw 4 in test/api-redis-outage.test.ts).
 */
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
process.on('unhandledRejection', onUnhandled)
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})

describe('QueueFactory.close with Redis away', () => {
  it('closes its queues without an unhandled rejection, at any moment of the connection attempts', async () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'silent' })
    for (let i = 0; i < 40; i++) {
      const factory = new QueueFactory(config, recordingLogger(), { failFast: true })
      for (const name of Object.values(QueueNames)) factory.queue(name)
      await new Promise((r) => setTimeout(r, (i * 13) % 300))
      await factory.close()
    }
    await new Promise((r) => setTimeout(r, 1000))
    expect(unhandled.map(String)).toEqual([])
  }, 60_000)
})
