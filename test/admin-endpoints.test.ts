import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deadLetterRow, DeadLetterStore } from '../ingest/pipeline/dead-letter-store.js'
import { DeadLetterReader } from '../shared/dead-letters/dead-letters.js'
import type { RunningRole } from '../shared/runtime.js'
import { startIngestRole } from '../ingest/role.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { waitForJob } from './support/ingest-harness.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { priceInput, swapInput } from './support/record-inputs.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * The admin endpoints on the real API with the real ingest role in the same process (the
 * embedded store held, as under npm start): off without ADMIN_TOKEN, bearer-protected with
 * it, the queue dashboard, dead-letter counts, paging, and a re-drive run by the ingest role.
 */

const TOKEN = 'admin-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }

describe('admin endpoints without ADMIN_TOKEN', () => {
  let rt: TestRuntime
  let api: TestApi
  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('are a JSON 404, token or not, whatever the method', async () => {
    for (const [method, path] of [
      ['GET', '/admin/queues'],
      ['GET', '/admin/queues/api/queues'],
      ['GET', '/admin/dead-letters'],
      ['GET', '/admin/dead-letters/counts'],
      ['POST', '/admin/dead-letters/redrive'],
    ] as const) {
      for (const headers of [{}, auth]) {
        const res = await getJson(`${api.baseUrl}${path}`, { method, headers })
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.contentType).toMatch(/^application\/json/)
        expect(res.body).toEqual({ status: 'error', message: `No such endpoint: ${method} ${path}` })
      }
    }
  })
})

describe('admin endpoints with ADMIN_TOKEN', () => {
  let rt: TestRuntime
  let api: TestApi
  let ingest: RunningRole
  let producer: IngestProducer
  let reader: DeadLetterReader

  beforeAll(async () => {
    rt = await createTestRuntime({ ADMIN_TOKEN: TOKEN, INGEST_FLUSH_MS: '50' })
    ingest = await startIngestRole(rt)
    api = await startTestApi(rt)
    producer = new IngestProducer(rt.config)
    reader = new DeadLetterReader(rt.clickhouse, rt.tables)
    // 3 swaps with a bad hash, 2 with a bad timestamp (one job), 1 bad price (another source).
    const swaps = [
      ...[1, 2, 3].map((i) => swapInput(`hash-${i}`, { hash: `0xnothash${i}` })),
      ...[1, 2].map((i) => swapInput(`time-${i}`, { timestamp: -i })),
      swapInput('fine'),
    ]
    expect(await waitForJob(producer, await producer.send('swap', swaps, 'feed-a'))).toEqual({ accepted: 1, rejected: 5 })
    const price = priceInput('0x' + 'ab'.repeat(20), { price_usd: -1 })
    expect(await waitForJob(producer, await producer.send('price', [price], 'feed-b'))).toEqual({ accepted: 0, rejected: 1 })
  })
  afterAll(async () => {
    await producer?.close()
    await api?.close()
    await ingest?.stop()
    await rt?.cleanup()
  })

  it('refuse a request without the token, with a wrong one, or with one of another length: JSON 401', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'The admin endpoints need Authorization: Bearer <ADMIN_TOKEN>'],
      [{ authorization: TOKEN }, 'The admin endpoints need Authorization: Bearer <ADMIN_TOKEN>'],
      [{ authorization: `Bearer ${TOKEN.slice(0, -1)}x` }, 'The admin token is not valid'],
      [{ authorization: `Bearer ${TOKEN}${TOKEN}` }, 'The admin token is not valid'],
      [{ authorization: 'Bearer x' }, 'The admin token is not valid'],
    ]
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/dead-letters', '/admin/nothing-here']) {
      for (const [headers, message] of cases) {
        const res = await getJson(`${api.baseUrl}${path}`, { headers })
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401)
        expect(res.body).toEqual({ status: 'error', message })
      }
    }
    const post = await getJson(`${api.baseUrl}/admin/dead-letters/redrive`, { method: 'POST', body: '{"all":true}', headers: { 'content-type': 'application/json' } })
    expect(post.status).toBe(401)
  })

  it('with the token: the dashboard shows every queue; unknown admin paths are a JSON 404', async () => {
    const page = await fetch(`${api.baseUrl}/admin/queues`, { headers: auth })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toMatch(/<html/i)
    // Its script is served under the same path, behind the same token.
    expect(html).toContain('<base href="/admin/queues/"')
    const script = new URL(/<script[^>]+src="([^"]+)"/.exec(html)![1]!, `${api.baseUrl}/admin/queues/`)
    expect((await fetch(script, { headers: auth })).status).toBe(200)
    expect((await fetch(script)).status).toBe(401)
    const queues = await getJson<{ queues: Array<{ name: string }> }>(`${api.baseUrl}/admin/queues/api/queues`, { headers: auth })
    expect(queues.status).toBe(200)
    expect(queues.body.queues.map((q) => q.name).sort()).toEqual(['alert-deliveries', 'dead-letter-redrive', 'indicators', 'ingest-records'])
    // A browser's Basic prompt works too: any user name, the token as password.
    const basic = await getJson(`${api.baseUrl}/admin/queues/api/queues`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` },
    })
    expect(basic.status).toBe(200)
    const unknown = await getJson(`${api.baseUrl}/admin/nothing-here`, { headers: auth })
    expect(unknown).toMatchObject({ status: 404, body: { status: 'error', message: 'No such endpoint: GET /admin/nothing-here' } })
  })

  it('counts dead letters by record type and by reason', async () => {
    const res = await getJson(`${api.baseUrl}/admin/dead-letters/counts`, { headers: auth })
    expect(res.status).toBe(200)
    const counts = res.body.result
    expect(counts).toMatchObject({ total: 6, pending: 6, distinct_reasons: 3 })
    expect(counts.by_type).toEqual([
      { record_type: 'swap', count: 5, pending: 5 },
      { record_type: 'price', count: 1, pending: 1 },
    ])
    expect(counts.by_reason.map((r: { count: number; record_type: string }) => [r.count, r.record_type])).toEqual([
      [3, 'swap'],
      [2, 'swap'],
      [1, 'price'],
    ])
    expect(counts.by_reason[0].reason).toMatch(/^hash: /)
    expect(counts.by_reason[1].reason).toMatch(/^timestamp: /)
    const top = await getJson(`${api.baseUrl}/admin/dead-letters/counts?reasons=1`, { headers: auth })
    expect(top.body.result.by_reason).toHaveLength(1)
    const bad = await getJson(`${api.baseUrl}/admin/dead-letters/counts?reasons=0`, { headers: auth })
    expect(bad).toMatchObject({ status: 400, body: { status: 'error', message: 'reasons must be an integer from 1 to 500 (got "0")' } })
  })

  it('lists dead letters in pages like the rest of the API, every one exactly once, with filters', async () => {
    const seen: string[] = []
    for (let offset = 0; offset < 6; offset += 2) {
      const res = await getJson(`${api.baseUrl}/admin/dead-letters?limit=2&offset=${offset}`, { headers: auth })
      expect(res.status).toBe(200)
      expect(res.body.pagination).toEqual({ total: 6, limit: 2, offset })
      expect(res.body.result).toHaveLength(2)
      seen.push(...res.body.result.map((l: { id: string }) => l.id))
    }
    expect(new Set(seen).size).toBe(6)
    const past = await getJson(`${api.baseUrl}/admin/dead-letters?limit=2&offset=6`, { headers: auth })
    expect(past.body).toEqual({ status: 'success', result: [], pagination: { total: 6, limit: 2, offset: 6 } })

    const prices = await getJson(`${api.baseUrl}/admin/dead-letters?type=price`, { headers: auth })
    expect(prices.body.pagination.total).toBe(1)
    const [letter] = prices.body.result
    expect(letter).toMatchObject({ record_type: 'price', source: 'feed-b', payload_format: 'json', line: null, csv_header: null, redriven_at: null })
    expect(JSON.parse(letter.payload)).toMatchObject({ price_usd: -1 })

    const bySource = await getJson(`${api.baseUrl}/admin/dead-letters?source=feed-a&limit=500`, { headers: auth })
    expect(bySource.body.pagination.total).toBe(5)
    const reason = bySource.body.result.find((l: { reason: string }) => l.reason.startsWith('timestamp')).reason
    const byReason = await getJson(`${api.baseUrl}/admin/dead-letters?reason=${encodeURIComponent(reason)}`, { headers: auth })
    expect(byReason.body.pagination.total).toBe(2)

    for (const [query, message] of [
      ['limit=501', 'limit must be an integer from 1 to 500 (got "501")'],
      ['offset=-1', 'offset must be an integer from 0 to 9007199254740991 (got "-1")'],
      ['pending=yes', 'pending must be true or false (got "yes")'],
      ['type=', 'type must not be empty'],
    ]) {
      const res = await getJson(`${api.baseUrl}/admin/dead-letters?${query}`, { headers: auth })
      expect(res, query).toMatchObject({ status: 400, body: { status: 'error', message } })
    }
  })

  it('refuses a re-drive that names nothing, or a body that is not JSON', async () => {
    for (const body of ['{}', '{"all":false}', '{"ids":[]}', '{"everything":true}']) {
      const res = await getJson(`${api.baseUrl}/admin/dead-letters/redrive`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      })
      expect(res.status, body).toBe(400)
      expect(res.body.message).toMatch(/^Invalid re-drive request: /)
    }
    const broken = await getJson(`${api.baseUrl}/admin/dead-letters/redrive`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"all":',
    })
    expect(broken).toMatchObject({ status: 400, body: { status: 'error' } })
    const missing = await getJson(`${api.baseUrl}/admin/dead-letters/redrives/12345`, { headers: auth })
    expect(missing).toMatchObject({ status: 404, body: { status: 'error' } })
  })

  it('re-drives a fixed-up record while the service runs: stored once however often re-driven; an invalid one stays a dead letter', async () => {
    // A record refused under an earlier rule and now valid, as an operator would find it.
    const fixed = swapInput('fixed-up')
    const store = new DeadLetterStore(rt.clickhouse, rt.tables)
    const fixedLetter = deadLetterRow('swap', fixed, 'refused by an earlier rule', 'feed-old', Date.now() - 60_000)
    await store.insert([fixedLetter])
    const invalid = (await reader.page({ source: 'feed-a' }, 1, 0)).letters[0]!

    for (let round = 1; round <= 2; round++) {
      const status = await redriveAndWait({ ids: [fixedLetter.id, invalid.id] })
      expect(status).toMatchObject({ state: 'completed', result: { redriven: 2, jobs: 2, pages: 1, skipped: 0 } })
      await waitForIngestIdle()
      const [row] = await (
        await rt.clickhouse.query({
          query: `SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE hash = {h:String}`,
          query_params: { h: fixed.hash.toLowerCase() },
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>()
      expect(Number(row!.n), `round ${round}`).toBe(1)
      const [fixedNow] = (await reader.page({ ids: [fixedLetter.id] }, 1, 0)).letters
      expect(fixedNow!.redriven_at).not.toBeNull()
      const [invalidNow] = (await reader.page({ ids: [invalid.id] }, 1, 0)).letters
      expect(invalidNow).toMatchObject({ redriven_at: null, reason: invalid.reason, source: 'redrive:feed-a', payload: invalid.payload })
    }
    // Still 7 dead letters (6 + the fixed-up one), the fixed one no longer pending.
    expect(await reader.count()).toBe(7)
    expect(await reader.count({ pendingOnly: true })).toBe(6)
  })

  it('re-drives by reason: only the pending ones of that reason', async () => {
    const price = (await reader.page({ type: 'price' }, 1, 0)).letters[0]!
    const status = await redriveAndWait({ reason: price.reason })
    expect(status).toMatchObject({ state: 'completed', result: { redriven: 1, jobs: 1, pages: 1 } })
  })

  async function redriveAndWait(body: unknown): Promise<{ state: string; result: unknown }> {
    const res = await getJson(`${api.baseUrl}/admin/dead-letters/redrive`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(202)
    expect(res.body.result.selection).toEqual(body)
    const id: string = res.body.result.id
    const deadline = Date.now() + 30_000
    for (;;) {
      const status = await getJson(`${api.baseUrl}/admin/dead-letters/redrives/${id}`, { headers: auth })
      expect(status.status).toBe(200)
      if (status.body.result.state === 'completed' || status.body.result.state === 'failed') return status.body.result
      if (Date.now() > deadline) throw new Error(`re-drive ${id} still ${status.body.result.state}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  async function waitForIngestIdle(): Promise<void> {
    const deadline = Date.now() + 30_000
    for (;;) {
      const counts = await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      if (Object.values(counts).every((n) => n === 0)) return
      if (Date.now() > deadline) throw new Error(`ingest queue not idle: ${JSON.stringify(counts)}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
})
