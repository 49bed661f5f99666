import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../shared/platform/config.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import { runTsx } from './support/backfill-files.js'
import { testEnv } from './support/runtime.js'

/**
 * The service started on a store an earlier release left below the baseline: it says why
 * it cannot start and how to rebuild the store, on one line, and exits 1, without a stack
 * trace. The children own the embedded data directory; this process never opens it.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'store-too-old-'))
const env = testEnv({ CLICKHOUSE_PATH: dataDir, CLICKHOUSE_DATABASE: 'older_store', PORT: '0', LOG_LEVEL: 'info' })

describe('starting on a store older than the baseline', () => {
  beforeAll(async () => {
    const made = await runTsx('test/support/make-older-store.ts', ['12'], env)
    expect(made, made.stderr).toMatchObject({ code: 0 })
  })
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true })
    const redis = createRedis(loadConfig(env).redis.url)
    try {
      await deleteKeysWithPrefix(redis, env.REDIS_PREFIX!)
    } finally {
      redis.disconnect()
    }
  })

  // npm start, and one of the single-role entry points (each opens the store through runRoles).
  it.each(['main.ts', 'api/main.ts'])('%s prints the refusal as one line and exits 1', async (entry) => {
    const result = await runTsx(entry, [], env)

    expect(result.code, result.stderr).toBe(1)
    const output = `${result.stdout}${result.stderr}`
    expect(output.trim().split('\n'), output).toEqual([
      'cannot start: the store at older_store is at schema version 12, older than the baseline (26); this version cannot upgrade it: ' +
        'back up what you need, drop the database (DROP DATABASE older_store) or point CLICKHOUSE_DATABASE (or CLICKHOUSE_PATH) elsewhere, ' +
        'and start again to rebuild it, then re-run the backfill',
    ])
  })
})
