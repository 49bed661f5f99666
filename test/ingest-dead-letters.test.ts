import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse } from '../shared/storage/clickhouse.js'
import { createRedis, deleteKeysWithPrefix } from '../shared/platform/redis.js'
import type { Runtime } from '../shared/runtime.js'
import { StoreAccess } from '../ingest/cli/dead-letter-access.js'
import { listDeadLetters } from '../ingest/cli/dead-letter-commands.js'
import { DeadLetterReader } from '../shared/dead-letters/dead-letters.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { swapInput } from './support/record-inputs.js'
import { runDeadLettersCli } from './support/dead-letters-cli.js'


describe('dead letters: list and redrive', () => {
  let rt: TestRuntime
  let runtime: Runtime
  let ingest: IngestHarness | undefined
  const bad1 = swapInput('dl-1', { hash: 'not-a-hash' })
  const bad2 = swapInput('dl-2', { timestamp: -5 })

  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
    runtime = rt
    ingest = await startIngestHarness(runtime)
    const jobId = await ingest.producer.send('swap', [bad1, swapInput('dl-ok'), bad2], 'dl-test')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 2 })
  })
  afterAll(async () => {
    await ingest?.close()
    await runtime.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${runtime.tables.database}` })
    await runtime.clickhouse.close()
    const redis = createRedis(rt.config.redis.url)
    await deleteKeysWithPrefix(redis, rt.config.redis.prefix)
    redis.disconnect()
  })

  it('lists each dead letter with its reason and the record as received', async () => {
    const lines: string[] = []
    const access = new StoreAccess(rt.config, runtime.clickhouse, runtime.tables)
    const shown = await listDeadLetters(access, { type: 'swap' }, { limit: 50, offset: 0 }, (l) => lines.push(l))
    expect(shown).toBe(2)
    const text = lines.join('\n')
    expect(text).toMatch(/reason: {2}hash: must be "0x" followed by 64 hexadecimal characters/)
    expect(text).toMatch(/reason: {2}timestamp: /)
    expect(text).toContain(`payload: ${JSON.stringify(bad1)}`)
    expect(lines.at(-1)).toBe('2 shown of 2 dead letters of type swap')
  })

  it('says clearly that the embedded store is held by another process', async () => {
    const run = await runDeadLettersCli(rt.env, ['list'])
    expect(run.code).toBe(3)
    expect(run.stderr).toContain('the running service (npm start) holds it, and ADMIN_TOKEN is not set')
  })

  it('lists and re-drives from the command line once the store is free; a record that fails again is stored once', async () => {
    await ingest!.close()
    ingest = undefined
    await runtime.clickhouse.close()

    const list = await runDeadLettersCli(rt.env, ['list', '--type', 'swap'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('hash: must be "0x" followed by 64 hexadecimal characters')
    expect(list.stdout).toContain('2 shown of 2 dead letters of type swap')

    const redrive = await runDeadLettersCli(rt.env, ['redrive', '--type', 'swap'])
    expect(redrive.code, redrive.stderr).toBe(0)
    expect(redrive.stdout).toContain('re-enqueued 2 dead letters in 1 job (1 page read)')

    const usage = await runDeadLettersCli(rt.env, ['purge'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('usage:')

    runtime = { ...rt, clickhouse: createClickHouse(rt.config.clickhouse) }
    const reader = new DeadLetterReader(runtime.clickhouse, runtime.tables)
    expect((await reader.page({ type: 'swap' }, 10, 0)).letters.every((l) => l.redriven_at !== null)).toBe(true)

    ingest = await startIngestHarness(runtime)
    const [job] = await ingest.producer.queue.getJobs(['wait', 'active', 'completed', 'delayed'])
    expect(job!.data.source).toBe('redrive:dl-test')
    expect(await ingest.finished(job!.id!)).toEqual({ accepted: 0, rejected: 2 })
    const again = (await reader.page({ type: 'swap' }, 10, 0)).letters
    expect(again).toHaveLength(2)
    expect(again.every((l) => l.redriven_at === null && l.source === 'redrive:dl-test')).toBe(true)
  })
})
