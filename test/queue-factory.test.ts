import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../shared/platform/config.js'
import { defaultJobOptions, QueueFactory } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames } from '../shared/platform/queues.js'
import { createRedis, deleteKeysWithPrefix, type Redis } from '../shared/platform/redis.js'
import { freePort } from './support/private-redis.js'
import { recordingLogger } from './support/recording-logger.js'
import { testEnv } from './support/runtime.js'

/**
 * One queue factory for every role (names, key prefix, default job options and retention,
 * connections) and one Redis connection policy (an outage logged once per process, however
 * many connections see it). Real Redis: the shared one under a fresh prefix, and a private
 * redis-server this file starts, stops and starts again for the outage.
 */
const config = loadConfig(testEnv({ INGEST_MAX_ATTEMPTS: '7', INGEST_FAILED_JOBS_KEEP: '12', INGEST_FAILED_JOBS_MAX_AGE_HOURS: '5' }))

describe('QueueFactory', () => {
  let redis: Redis
  beforeAll(() => {
    redis = createRedis(config.redis.url)
  })
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, config.redis.prefix)
    redis.disconnect()
  })

  it('opens every queue under REDIS_PREFIX with its default job options, and a worker of the same factory runs its jobs', async () => {
    const queues = new QueueFactory(config, recordingLogger())
    try {
      const ingest = queues.queue(QueueNames.ingest)
      const job = await ingest.add('swap', { type: 'swap', records: [], source: 'test' })
      const stored = await ingest.getJob(job.id!)
      expect(stored!.opts).toMatchObject({
        attempts: 7,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { count: 12, age: 5 * 3600 },
      })
      expect(await redis.exists(`${config.redis.prefix}:${QueueNames.ingest}:${job.id}`)).toBe(1)

      const indicators = queues.queue(QueueNames.indicators)
      const events = queues.events(QueueNames.indicators)
      await events.waitUntilReady()
      const worker = queues.worker(QueueNames.indicators, async (j) => ({ written: j.name === IndicatorJobNames.recomputeAll ? 3 : 0 }))
      const done = await indicators.add(IndicatorJobNames.recomputeAll, {})
      expect(done.opts).toMatchObject({ attempts: 3, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 } })
      expect(await done.waitUntilFinished(events, 30_000)).toEqual({ written: 3 })
      expect(worker.isRunning()).toBe(true)
    } finally {
      await queues.close()
    }
  })

  it('gives every queue bounded retention: none keeps finished jobs forever', () => {
    for (const name of Object.values(QueueNames)) {
      const options = defaultJobOptions(name, config.ingest)
      for (const key of ['removeOnComplete', 'removeOnFail'] as const) {
        expect(options[key], `${name} ${key}`).toMatchObject({ count: expect.any(Number), age: expect.any(Number) })
      }
    }
  })

  it('close() closes what it opened and its connections', async () => {
    // BullMQ names a worker's and an event stream's connections `<prefix>:<base64 queue name>…`.
    const named = async () => (await redis.client('LIST') as string).split('\n').filter((l) => l.includes(` name=${config.redis.prefix}:`)).length
    const queues = new QueueFactory(config)
    const queue = queues.queue(QueueNames.indicators)
    const worker = queues.worker(QueueNames.indicators, async () => ({ written: 0 }))
    const events = queues.events(QueueNames.indicators)
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady(), events.waitUntilReady()])
    expect(await named()).toBeGreaterThanOrEqual(2)
    await queues.close()
    expect(worker.isRunning()).toBe(false)
    await waitFor(async () => (await named()) === 0)
  })

  it('is the only place that constructs a BullMQ Queue, Worker or QueueEvents in the service', () => {
    const root = join(import.meta.dirname, '..')
    const offenders: string[] = []
    for (const folder of ['shared', 'ingest', 'indicators', 'api', 'bench', 'follower']) {
      for (const file of sourceFiles(join(root, folder))) {
        if (file.endsWith('shared/platform/queue-factory.ts')) continue
        if (/new (Queue|Worker|QueueEvents|FlowProducer)\s*(<[^>]*>)?\(/.test(readFileSync(file, 'utf8').replace(/new Worker\(`/g, ''))) {
          offenders.push(file.slice(root.length + 1))
        }
      }
    }
    expect(offenders).toEqual([])
  })
})

describe('the Redis connection policy', () => {
  let server: { port: number; child: ChildProcess } | undefined
  afterAll(async () => {
    await stop(server)
  })

  it('logs an outage once and its end once, however many connections and queues see it', async () => {
    const port = await freePort()
    server = await start(port)
    const logger = recordingLogger()
    const url = `redis://127.0.0.1:${port}`
    const queues = new QueueFactory({ ...config, redis: { ...config.redis, url } }, logger)
    const commands = createRedis(url, 'commands', logger)
    try {
      const queue = queues.queue(QueueNames.indicators)
      const events = queues.events(QueueNames.indicators)
      const worker = queues.worker(QueueNames.indicators, async () => ({ written: 0 }))
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady(), commands.ping()])
      expect(logger.lines).toEqual([])

      await stop(server)
      server = undefined
      // Every connection notices (ioredis emits an error per failed reconnection, on each).
      await waitFor(() => logger.lines.length > 0 && commands.status !== 'ready')
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      server = await start(port)
      await waitFor(() => logger.lines.some((l) => l.msg === 'redis available again'))
      await commands.ping()

      const outage = logger.lines.filter((l) => l.msg === 'redis unavailable')
      expect(outage).toHaveLength(1)
      expect(outage[0]!.level).toBe('warn')
      expect(logger.lines.filter((l) => l.msg === 'redis available again')).toHaveLength(1)
      // Nothing else: BullMQ's re-emitted connection errors are not logged again.
      expect(logger.lines.map((l) => l.msg).sort()).toEqual(['redis available again', 'redis unavailable'])
    } finally {
      await queues.close()
      commands.disconnect()
    }
  })
})

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sourceFiles(path)
    else if (entry.name.endsWith('.ts')) yield path
  }
}

async function start(port: number): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const probe = createRedis(`redis://127.0.0.1:${port}`)
  probe.on('error', () => undefined)
  try {
    await waitFor(async () => (await probe.ping().catch(() => null)) === 'PONG')
  } finally {
    probe.disconnect()
  }
  return { port, child }
}

async function stop(server: { child: ChildProcess } | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return
  const exited = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGKILL')
  await exited
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
