import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../shared/platform/logger.js'
import { createRedis } from '../shared/platform/redis.js'
import { ensureLocalRedis, RedisUnavailableError } from '../shared/platform/redis-bootstrap.js'
import { testRedisUrl } from './support/runtime.js'

const logger = createLogger('silent')

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

describe('redis bootstrap for npm start', () => {
  it('uses a Redis that already answers, starting nothing', async () => {
    const url = testRedisUrl
    const child = await ensureLocalRedis({ url, prefix: 'x', autostart: true, dataDir: '/nonexistent' }, logger)
    expect(child).toBeNull()
  })

  it('starts a private redis-server with an append-only file when none answers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'redis-bootstrap-'))
    const url = `redis://127.0.0.1:${await freePort()}`
    const child = await ensureLocalRedis({ url, prefix: 'x', autostart: true, dataDir }, logger)
    try {
      expect(child).not.toBeNull()
      const redis = createRedis(url)
      try {
        await redis.set('bootstrap-probe', '1')
        expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes'])
        expect(await redis.config('GET', 'dir')).toEqual(['dir', dataDir])
      } finally {
        redis.disconnect()
      }
      expect(existsSync(join(dataDir, 'appendonlydir'))).toBe(true)
    } finally {
      child?.kill('SIGTERM')
      await new Promise((r) => child?.once('exit', r))
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('says how to get a Redis when it may not start one', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`
    const attempt = ensureLocalRedis({ url, prefix: 'x', autostart: false, dataDir: '/tmp' }, logger)
    await expect(attempt).rejects.toThrow(RedisUnavailableError)
    await expect(attempt).rejects.toThrow(/apt-get install redis-server.*REDIS_URL/)
  })

  it('does not try to start a Redis for a remote host', async () => {
    const attempt = ensureLocalRedis({ url: 'redis://192.0.2.1:6379', prefix: 'x', autostart: true, dataDir: '/tmp' }, logger)
    await expect(attempt).rejects.toThrow(/nothing answers at redis:\/\/192\.0\.2\.1:6379/)
  })
})
