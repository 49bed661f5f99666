import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, lastClosedCandleStart } from '../shared/candles/candles.js'
import { createRedis, type Redis } from '../shared/platform/redis.js'
import type { RunningRole } from '../shared/runtime.js'
import { readTechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { addressOf, insertPrices } from './support/market-rows.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const run = promisify(execFile)

function cli(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'indicators/cli.ts', ...args], {
    env: { ...process.env, ...env },
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  )
}

/** The engine's clock: fixed, so no run can cross a 4-hour boundary. */
const NOW = Date.UTC(2026, 5, 1, 13, 30)

describe('npm run indicators (the CLI, against a running engine)', () => {
  let rt: TestRuntime
  let role: RunningRole
  let redis: Redis

  beforeAll(async () => {
    rt = await createTestRuntime()
    redis = createRedis(rt.config.redis.url)
    role = await startIndicatorsRole(rt, { clock: () => NOW })
  })
  afterAll(async () => {
    await role.stop()
    redis.disconnect()
    await rt.cleanup()
  })

  it('--token recomputes one token and says what it wrote', async () => {
    const address = addressOf(0x51)
    const last = lastClosedCandleStart(NOW)
    await insertPrices(rt, Array.from({ length: 40 }, (_, i) => ({ address, time: last - i * CANDLE_MS, price: 10 + (i % 5) })))
    await redis.del(`${rt.config.redis.prefix}:ta:${address}`)
    const out = await cli(rt.env, '--token', address.toUpperCase().replace('0X', '0x'))
    expect(out.stdout).toContain('wrote 1 technical-analysis result')
    expect(out.code).toBe(0)
    expect((await readTechnicalAnalysis(redis, rt.config.redis.prefix, address))?.candleCount).toBe(40)
  })

  it('--token for a token without candles writes nothing and says why', async () => {
    const out = await cli(rt.env, '--token', addressOf(0x52))
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('wrote nothing: the token has no closed 4-hour candles yet')
  })

  it('--all recomputes every token (or leaves it to its computation under way, and says so)', async () => {
    const out = await cli(rt.env, '--all')
    expect(out.code).toBe(0)
    // The engine may be computing the token at that moment (its candles were just stored).
    expect(out.stdout).toMatch(/wrote 1 technical-analysis result|wrote nothing; 1 token was being computed by the engine already/)
    expect(await readTechnicalAnalysis(redis, rt.config.redis.prefix, addressOf(0x51))).not.toBeNull()
  })

  it('refuses bad arguments before touching Redis', async () => {
    const out = await cli(rt.env, '--token', 'nope')
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('usage: npm run indicators')
  })
})
