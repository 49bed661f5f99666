import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { IndicatorJobNames, QueueNames, type IndicatorJobResult } from '../shared/platform/queues.js'
import { startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * What an operator watches. GET /metrics shows how fresh the indicator results are: `indicator_result_age_seconds`,
 * the time since an indicator job last wrote a result, read from the indicators queue's
 * events (so an API process sees the engine wherever it runs). Real Redis, a real BullMQ
 * worker standing in for the engine's answers, the real API. And the sample Grafana
 * dashboard (docs/grafana-dashboard.json) charts only metrics the API serves.
 */
describe('indicator freshness metric', () => {
  let rt: TestRuntime
  let api: TestApi
  let queues: QueueFactory

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    queues = new QueueFactory(rt.config, rt.logger)
  })
  afterAll(async () => {
    await queues?.close()
    await api?.close()
    await rt?.cleanup()
  })

  async function age(): Promise<number | undefined> {
    const text = await (await fetch(`${api.baseUrl}/metrics`)).text()
    expect(text).toContain('# HELP indicator_result_age_seconds')
    const series = 'indicator_result_age_seconds{queue="indicators"} '
    const line = text.split('\n').find((l) => l.startsWith(series))
    expect(text.split('\n').filter((l) => l.startsWith('indicator_result_age_seconds'))).toEqual(line === undefined ? [] : [line])
    return line === undefined ? undefined : Number(line.slice(series.length))
  }

  /** Runs one recompute-token job whose worker answers `result`; returns when it completed. */
  async function runJob(result: IndicatorJobResult): Promise<number> {
    const queue = queues.queue(QueueNames.indicators)
    const events = queues.events(QueueNames.indicators)
    await events.waitUntilReady()
    const worker = queues.worker(QueueNames.indicators, async () => result)
    try {
      const job = await queue.add(IndicatorJobNames.recomputeToken, { contract_address: '0x' + '1'.repeat(40) })
      await job.waitUntilFinished(events, 30_000)
      return Date.now()
    } finally {
      await worker.close()
      await events.close()
    }
  }

  it('is absent while no result is on record, also after a job that wrote nothing', async () => {
    expect(await age()).toBeUndefined()
    await runJob({ written: 0, reason: 'the token has no candles' })
    expect(await age()).toBeUndefined()
  })

  it('after a job that wrote a result: the seconds since it completed', async () => {
    const before = Date.now()
    const completed = await runJob({ written: 1 })
    const scraped = Date.now()
    const seconds = await age()
    expect(seconds).toBeDefined()
    expect(seconds!).toBeGreaterThanOrEqual(0)
    // At most the time from the job's start to the scrape; at least the time from its completion to the scrape's start.
    expect(seconds!).toBeLessThanOrEqual((Date.now() - before) / 1000 + 0.001)
    expect(seconds! * 1000).toBeGreaterThanOrEqual(scraped - completed - 1_000)

    // A later job that wrote nothing does not make the results fresher.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await runJob({ written: 0 })
    expect(await age()).toBeGreaterThanOrEqual(1)
  })

  it('the sample Grafana dashboard charts only metrics that GET /metrics serves', async () => {
    const text = await (await fetch(`${api.baseUrl}/metrics`)).text()
    const served = new Set(text.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]!))
    const dashboard = JSON.parse(readFileSync(new URL('../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>
    }
    const charted = new Set<string>()
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) {
        for (const [name] of target.expr.matchAll(/\b[a-z_]+_(?:total|seconds|bytes|count|bucket|jobs|pending)\b(?=\{|\[|\))/g)) {
          charted.add(name.replace(/_(count|bucket|sum)$/, ''))
        }
      }
    }
    expect(charted.size).toBeGreaterThanOrEqual(8)
    for (const name of ['http_request_duration_seconds', 'queue_jobs', 'dead_letters_pending', 'clickhouse_rows_inserted_total', 'clickhouse_insert_duration_seconds', 'indicator_result_age_seconds']) {
      expect(charted, name).toContain(name)
    }
    for (const name of charted) expect(served, `${name} is charted but not served`).toContain(name)
  })
})
