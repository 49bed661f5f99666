import { randomBytes } from 'node:crypto'
import { Queue, UnrecoverableError, Worker } from 'bullmq'
import { afterAll, describe, expect, it } from 'vitest'
import { JobWaiter } from '../ingest/cli/backfill/job-waiter.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { testRedisUrl } from './support/runtime.js'

/** The --wait bookkeeping against real BullMQ jobs: completed, retried, failed for good, removed. */

const url = testRedisUrl
const prefix = `test-waiter-${randomBytes(4).toString('hex')}`
const connection = createRedis(url, 'bullmq')
const queue = new Queue('waiter', { connection, prefix })
const workerConnection = createRedis(url, 'bullmq')
let worker: Worker | undefined

afterAll(async () => {
  await worker?.close()
  await queue.close()
  const redis = createRedis(url)
  await deleteKeysWithPrefix(redis, prefix)
  redis.disconnect()
  connection.disconnect()
  workerConnection.disconnect()
})

describe('waiting for backfill jobs', () => {
  it('adds up the results of completed jobs, counts retried ones once, and reports jobs that failed for good', async () => {
    const ok = await queue.add('swap', { kind: 'ok' })
    const flaky = await queue.add('swap', { kind: 'flaky' }, { attempts: 3, backoff: { type: 'fixed', delay: 50 } })
    const broken = await queue.add('swap', { kind: 'broken' }, { attempts: 3 })
    const removed = await queue.add('swap', { kind: 'ok' }, { delay: 60_000 })
    await removed.remove()

    const waiter = new JobWaiter(queue, [ok.id!, flaky.id!, broken.id!, removed.id!], 20)
    const waiting = waiter.waitAll()
    worker = new Worker(
      'waiter',
      async (job) => {
        if (job.data.kind === 'broken') throw new UnrecoverableError('ClickHouse refused the rows')
        if (job.data.kind === 'flaky' && job.attemptsMade < 2) throw new Error('transient')
        return { accepted: 10, rejected: 2 }
      },
      { connection: workerConnection, prefix },
    )
    const totals = await waiting
    expect(totals).toEqual({
      finished: 4,
      accepted: 20,
      rejected: 4,
      failed: [{ id: broken.id, reason: 'ClickHouse refused the rows' }],
      vanished: 1,
    })
    expect(waiter.remaining).toBe(0)
  })
})
