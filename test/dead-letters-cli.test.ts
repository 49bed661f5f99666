import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deadLetterRow, DeadLetterStore } from '../ingest/pipeline/dead-letter-store.js'
import { startIngestRole } from '../ingest/role.js'
import { DeadLetterReader } from '../shared/dead-letters/dead-letters.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import type { RunningRole } from '../shared/runtime.js'
import { startTestApi, type TestApi } from './support/http.js'
import { waitForJob } from './support/ingest-harness.js'
import { swapInput } from './support/record-inputs.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { runDeadLettersCli } from './support/dead-letters-cli.js'

/**
 * `npm run dead-letters` while the service runs: this test process holds the embedded
 * store (API and ingest role running, as under npm start), so the command, a child
 * process, cannot open it and goes through the service's admin endpoints.
 */

const TOKEN = 'cli-admin-token-0123456789'


describe('npm run dead-letters while the service holds the embedded store', () => {
  let rt: TestRuntime
  let api: TestApi
  let ingest: RunningRole
  let producer: IngestProducer
  let env: Record<string, string>
  const fixed = swapInput('cli-fixed')
  let fixedId: string

  beforeAll(async () => {
    rt = await createTestRuntime({ ADMIN_TOKEN: TOKEN, INGEST_FLUSH_MS: '50' })
    ingest = await startIngestRole(rt)
    api = await startTestApi(rt)
    env = { ...rt.env, API_URL: api.baseUrl }
    producer = new IngestProducer(rt.config)
    const bad = [1, 2, 3].map((i) => swapInput(`cli-bad-${i}`, { hash: `0xbad${i}` }))
    expect(await waitForJob(producer, await producer.send('swap', bad, 'cli-feed'))).toEqual({ accepted: 0, rejected: 3 })
    const letter = deadLetterRow('swap', fixed, 'refused by an earlier rule', 'cli-old', Date.now() - 60_000)
    fixedId = letter.id
    await new DeadLetterStore(rt.clickhouse, rt.tables).insert([letter])
  })
  afterAll(async () => {
    await producer?.close()
    await api?.close()
    await ingest?.stop()
    await rt?.cleanup()
  })

  it('--help: the commands and exit codes, exit 0', async () => {
    const run = await runDeadLettersCli(env, ['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^usage: npm run dead-letters -- <command>/)
    expect(run.stdout).toMatch(/exit codes:\n {2}0 {2}done\n {2}1 {2}failure.*\n {2}2 {2}bad arguments.*\n {2}3 {2}the embedded store is held/)
    const bad = await runDeadLettersCli(env, ['redrive'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('redrive: name what to re-drive')
  })

  it('lists and counts through the admin endpoints', async () => {
    const list = await runDeadLettersCli(env, ['list', '--source', 'cli-feed', '--limit', '2'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stderr).toContain(`going through the running service at ${api.baseUrl}`)
    expect(list.stdout).toContain('reason:  hash: must be "0x" followed by 64 hexadecimal characters')
    expect(list.stdout).toContain('2 shown of 3 dead letters')
    const counts = await runDeadLettersCli(env, ['counts'])
    expect(counts.code, counts.stderr).toBe(0)
    expect(counts.stdout).toContain('4 dead letters, 4 pending')
    expect(counts.stdout).toContain('  swap: 4 (4 pending)')
    expect(counts.stdout).toMatch(/ {2}3 \(3 pending\) {2}swap {2}hash: /)
  })

  it('re-drives a fixed-up record through the running service: stored once, the dead letter no longer pending', async () => {
    const run = await runDeadLettersCli(env, ['redrive', '--id', fixedId])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^re-drive \S+ queued; the running service's ingest role runs it$/m)
    expect(run.stdout).toContain('re-enqueued 1 dead letter in 1 job (1 page read)')
    const deadline = Date.now() + 30_000
    for (;;) {
      const [row] = await (
        await rt.clickhouse.query({
          query: `SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE hash = {h:String}`,
          query_params: { h: fixed.hash.toLowerCase() },
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>()
      if (Number(row!.n) === 1) break
      if (Date.now() > deadline) throw new Error('the re-driven swap was not stored')
      await new Promise((r) => setTimeout(r, 100))
    }
    const reader = new DeadLetterReader(rt.clickhouse, rt.tables)
    expect((await reader.page({ ids: [fixedId] }, 1, 0)).letters[0]!.redriven_at).not.toBeNull()
    expect(await reader.count({ pendingOnly: true })).toBe(3)
  })

  it('without ADMIN_TOKEN, or with a wrong one, or with the service away: says why, exit 3 or 1', async () => {
    const noToken = await runDeadLettersCli({ ...env, ADMIN_TOKEN: '' }, ['list'])
    expect(noToken.code).toBe(3)
    expect(noToken.stderr).toContain('the running service (npm start) holds it, and ADMIN_TOKEN is not set')
    const wrong = await runDeadLettersCli({ ...env, ADMIN_TOKEN: 'x'.repeat(32) }, ['counts'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("401 The admin token is not valid (ADMIN_TOKEN differs from the running service's)")
    const away = await runDeadLettersCli({ ...env, API_URL: 'http://127.0.0.1:9' }, ['list'])
    expect(away.code).toBe(3)
    expect(away.stderr).toContain('the service does not answer at http://127.0.0.1:9 (API_URL)')
  })
})
