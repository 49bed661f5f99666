import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenRecord } from '../shared/records/records.js'
import { createRedis } from '../shared/platform/redis.js'
import { addressFor, mixedCase } from './support/factories.js'
import { startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { tokenInput } from './support/record-inputs.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A token id names one token: an id already held by another token, or shaped like another
 * token's contract address, is refused with its reason (dead-lettered) and the first
 * claimant keeps it; through the real worker, Redis and embedded ClickHouse.
 */

let rt: TestRuntime
let ingest: IngestHarness

beforeAll(async () => {
  rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
  ingest = await startIngestHarness(rt)
})
afterAll(async () => {
  await ingest?.close()
  await rt?.cleanup()
})

async function idsOf(labels: string[]): Promise<Record<string, string>> {
  const rs = await rt.clickhouse.query({
    query: `SELECT contract_address, id FROM ${rt.tables.tokens} FINAL WHERE contract_address IN {a:Array(String)}`,
    query_params: { a: labels.map(addressFor) },
    format: 'JSONEachRow',
  })
  const rows = await rs.json<{ contract_address: string; id: string }>()
  const out: Record<string, string> = {}
  for (const label of labels) {
    const row = rows.find((r) => r.contract_address === addressFor(label))
    if (row) out[label] = row.id
  }
  return out
}

async function owners(id: string): Promise<string[]> {
  const rs = await rt.clickhouse.query({
    query: `SELECT contract_address FROM ${rt.tables.tokens} FINAL WHERE id = {id:String} ORDER BY contract_address`,
    query_params: { id },
    format: 'JSONEachRow',
  })
  return (await rs.json<{ contract_address: string }>()).map((r) => r.contract_address)
}

async function reasons(source: string): Promise<string[]> {
  const rs = await rt.clickhouse.query({
    query: `SELECT reason FROM ${rt.tables.deadLetters} FINAL WHERE source = {source:String} ORDER BY reason`,
    query_params: { source },
    format: 'JSONEachRow',
  })
  return (await rs.json<{ reason: string }>()).map((r) => r.reason)
}

describe('a token id shaped like a contract address', () => {
  it('is refused by the schema unless it is the token\'s own address', () => {
    const other = addressFor('someone-else')
    const refused = tokenRecord.safeParse(tokenInput('shape-1', { id: other }))
    expect(refused.success).toBe(false)
    expect(refused.error?.issues[0]?.path).toEqual(['id'])
    expect(refused.error?.issues[0]?.message).toMatch(/another token's contract address/)
    expect(tokenRecord.safeParse(tokenInput('shape-2', { id: mixedCase(other) })).success).toBe(false)
    expect(tokenRecord.safeParse(tokenInput('shape-3', { id: mixedCase(addressFor('shape-3')) })).success).toBe(true)
  })

  it('through the worker: the token claiming another token\'s address as id is dead-lettered, the other keeps its lookups', async () => {
    const victim = tokenInput('victim')
    const impostor = tokenInput('impostor', { id: addressFor('victim') })
    const jobId = await ingest.producer.send('token', [victim, impostor], 'address-as-id')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 1 })
    expect(await idsOf(['victim', 'impostor'])).toEqual({ victim: addressFor('victim') })
    expect(await reasons('address-as-id')).toEqual([expect.stringMatching(/^id: .*another token's contract address/)])
  })
})

describe('two tokens with the same id', () => {
  it('in one job: the first keeps the id, the second is dead-lettered with the reason', async () => {
    const first = tokenInput('same-job-1', { id: 'shared-one' })
    const second = tokenInput('same-job-2', { id: 'shared-one' })
    const third = tokenInput('same-job-3', { id: 'free-one' })
    const jobId = await ingest.producer.send('token', [first, second, third], 'same-job')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 2, rejected: 1 })
    expect(await idsOf(['same-job-1', 'same-job-2', 'same-job-3'])).toEqual({ 'same-job-1': 'shared-one', 'same-job-3': 'free-one' })
    expect(await owners('shared-one')).toEqual([addressFor('same-job-1')])
    expect(await reasons('same-job')).toEqual([`id: "shared-one" already belongs to token ${addressFor('same-job-1')}`])
  })

  it('in later jobs, in parallel jobs, and after Redis lost its claims: the first claimant keeps the id', async () => {
    const first = await ingest.producer.send('token', [tokenInput('later-1', { id: 'shared-two' })], 'later-first')
    expect(await ingest.finished(first)).toEqual({ accepted: 1, rejected: 0 })

    // The same token again (same id, or another id: the first id stays) is no conflict.
    const again = await ingest.producer.send(
      'token',
      [tokenInput('later-1', { id: 'shared-two', name: 'Renamed' }), tokenInput('later-1', { id: 'other-id' })],
      'later-again',
    )
    expect(await ingest.finished(again)).toEqual({ accepted: 2, rejected: 0 })

    const rival = await ingest.producer.send('token', [tokenInput('later-2', { id: 'shared-two' })], 'later-rival')
    expect(await ingest.finished(rival)).toEqual({ accepted: 0, rejected: 1 })

    // Redis loses every claim: ClickHouse still knows who holds the id.
    const redis = createRedis(rt.config.redis.url)
    try {
      const claims = await redis.keys(`${rt.config.redis.prefix}:token-id*`)
      expect(claims.length).toBeGreaterThan(0)
      await redis.del(...claims)
    } finally {
      redis.disconnect()
    }
    const afterLoss = await ingest.producer.send('token', [tokenInput('later-3', { id: 'shared-two' })], 'later-after-loss')
    expect(await ingest.finished(afterLoss)).toEqual({ accepted: 0, rejected: 1 })

    // Many new tokens racing for one id in parallel jobs: exactly one gets it.
    const racers = Array.from({ length: 8 }, (_, i) => `race-${i}`)
    const jobs = await Promise.all(racers.map((label) => ingest.producer.send('token', [tokenInput(label, { id: 'raced-id' })], `race`)))
    const results = await Promise.all(jobs.map((id) => ingest.finished(id)))
    expect(results.reduce((sum, r) => sum + r.accepted, 0)).toBe(1)
    expect(results.reduce((sum, r) => sum + r.rejected, 0)).toBe(7)
    expect(await owners('raced-id')).toHaveLength(1)

    expect(await owners('shared-two')).toEqual([addressFor('later-1')])
    expect(await idsOf(['later-1', 'later-2', 'later-3'])).toEqual({ 'later-1': 'shared-two' })
    expect(await reasons('later-rival')).toEqual([`id: "shared-two" already belongs to token ${addressFor('later-1')}`])
    expect(await reasons('later-after-loss')).toEqual([`id: "shared-two" already belongs to token ${addressFor('later-1')}`])
  })

  it('a token refused for its id is not bound to it: sent again without an id it gets its own', async () => {
    const jobId = await ingest.producer.send('token', [tokenInput('later-2')], 'later-2-again')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 0 })
    expect(await idsOf(['later-2'])).toEqual({ 'later-2': addressFor('later-2') })
  })
})

