import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadConfig, type Config } from '../../shared/platform/config.js'
import { openRuntime } from '../../shared/bootstrap.js'
import { createRedis, deleteKeysWithPrefix } from '../../shared/platform/redis.js'
import type { Runtime } from '../../shared/runtime.js'
import { TEST_STORES_DIR } from './test-stores-setup.js'

/**
 * Test isolation: one embedded ClickHouse data directory per test process (chDB allows
 * one per process), a fresh database and a fresh Redis key prefix per runtime.
 */
let processDataDir: string | undefined

export function testDataDir(): string {
  if (!processDataDir) {
    processDataDir = mkdtempSync(join(process.env[TEST_STORES_DIR] ?? tmpdir(), 'smartmoney-test-'))
    const dir = processDataDir
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return processDataDir
}

export interface TestRuntime extends Runtime {
  /** The environment the runtime was configured from (hand it to child processes). */
  env: Record<string, string>
  cleanup(): Promise<void>
}

/** The Redis the tests use: REDIS_URL as the configuration reads it (default 127.0.0.1:6379). */
export const testRedisUrl = loadConfig().redis.url

export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const tag = randomBytes(4).toString('hex')
  return {
    CLICKHOUSE_PATH: testDataDir(),
    CLICKHOUSE_DATABASE: `test_${tag}`,
    REDIS_URL: testRedisUrl,
    REDIS_PREFIX: `test-${tag}`,
    REDIS_AUTOSTART: 'false',
    LOG_LEVEL: 'silent',
    SAMPLE_DATA: 'false',
    ...overrides,
  }
}

export async function createTestRuntime(overrides: Record<string, string> = {}): Promise<TestRuntime> {
  const env = testEnv(overrides)
  const config: Config = loadConfig(env)
  const runtime = await openRuntime(config, 'test')
  return {
    ...runtime,
    env,
    async cleanup() {
      await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${runtime.tables.database}` })
      await runtime.clickhouse.close()
      const redis = createRedis(config.redis.url)
      try {
        await deleteKeysWithPrefix(redis, config.redis.prefix)
      } finally {
        redis.disconnect()
      }
    },
  }
}
