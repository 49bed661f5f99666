import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchWriter } from '../ingest/pipeline/batch-writer.js'
import { addressFor } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/** GET /metrics: Prometheus's text format, with what an operator watches. */
describe('GET /metrics', () => {
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

  async function scrape(): Promise<string> {
    const res = await fetch(`${api.baseUrl}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    return res.text()
  }

  /** The value of one sample line (the metric name with its labels), or undefined. */
  function sample(text: string, series: string): number | undefined {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `))
    return line === undefined ? undefined : Number(line.slice(series.length + 1))
  }

  it('counts requests by route pattern and status, never by concrete path', async () => {
    const before = await scrape()
    const ok = 'http_request_duration_seconds_count{route="/tokens",method="GET",status="200"}'
    const missing = 'http_request_duration_seconds_count{route="/tokens/:contract_address",method="GET",status="404"}'
    await getJson(`${api.baseUrl}/tokens`)
    await getJson(`${api.baseUrl}/tokens`)
    await getJson(`${api.baseUrl}/tokens/${addressFor('metrics-unknown')}`)
    await getJson(`${api.baseUrl}/no/such/path`)
    const after = await scrape()
    expect((sample(after, ok) ?? 0) - (sample(before, ok) ?? 0)).toBe(2)
    expect((sample(after, missing) ?? 0) - (sample(before, missing) ?? 0)).toBe(1)
    expect(after).toContain('route="unmatched"')
    expect(after).not.toContain(addressFor('metrics-unknown'))
  })

  it('shows each queue by state, the dead letters pending, and the process itself', async () => {
    const text = await scrape()
    for (const queue of ['ingest-records', 'indicators']) {
      for (const state of ['waiting', 'active', 'failed']) {
        expect(sample(text, `queue_jobs{queue="${queue}",state="${state}"}`)).toBe(0)
      }
    }
    expect(sample(text, 'dead_letters_pending')).toBe(0)
    expect(text).toContain('process_cpu_user_seconds_total')
  })

  it('counts the rows the ingest writer inserts, and times its inserts', async () => {
    const series = 'clickhouse_rows_inserted_total{table="prices"}'
    const before = sample(await scrape(), series) ?? 0
    const writer = new BatchWriter(rt.clickhouse, { flushRows: 1, flushMs: 10 }, rt.logger)
    const row = (i: number) => ({ contract_address: addressFor('metrics-token'), timestamp: Date.UTC(2026, 0, 1, i), price_usd: 1 + i, volume_usd: null, ingested_at: Date.now() })
    await writer.write([{ table: rt.tables.prices, rows: [row(0), row(1), row(2)] }])
    await writer.drain()
    const after = await scrape()
    expect((sample(after, series) ?? 0) - before).toBe(3)
    expect(sample(after, 'clickhouse_insert_duration_seconds_count{table="prices"}')).toBeGreaterThanOrEqual(1)
  })
})
