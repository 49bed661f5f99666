import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { Redis } from 'ioredis'
import type { Config } from './config.js'
import type { Logger } from './logger.js'

/**
 * `npm start` on a fresh machine: if nothing answers at REDIS_URL, start a private
 * redis-server child (append-only file under REDIS_DATA_DIR) and stop it when this
 * process exits; if that is impossible, say how to get a Redis.
 */

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

export class RedisUnavailableError extends Error {}

async function answers(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

function redisServerOnPath(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' })
  return probe.error === undefined && probe.status === 0
}

function howToGetOne(url: string): string {
  return (
    `Redis is required and nothing answers at ${url}. ` +
    'Install it (Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`) so `npm start` ' +
    'can start a private one, or start one yourself (`docker run -p 6379:6379 redis:7`), ' +
    'or set REDIS_URL to a Redis that is running.'
  )
}

/** Returns the child it started (null when a Redis already answered); throws RedisUnavailableError. */
export async function ensureLocalRedis(config: Config['redis'], logger: Logger): Promise<ChildProcess | null> {
  if (await answers(config.url)) return null
  if (!config.autostart) throw new RedisUnavailableError(`${howToGetOne(config.url)} (REDIS_AUTOSTART is off)`)
  const url = new URL(config.url)
  if (!LOCAL_HOSTS.has(url.hostname)) throw new RedisUnavailableError(howToGetOne(config.url))
  if (!redisServerOnPath()) throw new RedisUnavailableError(howToGetOne(config.url))

  const dataDir = resolve(config.dataDir)
  mkdirSync(dataDir, { recursive: true })
  const port = url.port || '6379'
  const args = ['--port', port, '--bind', '127.0.0.1', '--dir', dataDir, '--appendonly', 'yes', '--save', '']
  if (url.password) args.push('--requirepass', decodeURIComponent(url.password))
  // Its own process group: a Ctrl-C must not stop Redis before the roles have drained
  // their queues; this process stops it when it exits.
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'], detached: true })
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM')
  }
  process.once('exit', stop)
  child.once('exit', () => process.off('exit', stop))

  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    if (await answers(config.url, 500)) {
      logger.info('started a private redis-server', { port: Number(port), dataDir, pid: child.pid })
      return child
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  stop()
  throw new RedisUnavailableError(
    `redis-server could not be started on port ${port} (data in ${dataDir}); ${howToGetOne(config.url)}`,
  )
}
