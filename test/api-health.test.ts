import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../shared/storage/migrate.js'
import { tablesFor } from '../shared/storage/tables.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('GET /health and GET /ready', () => {
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

  it('/health: 200 while the process serves', async () => {
    const { status, body, contentType } = await getJson(`${api.baseUrl}/health`)
    expect(status).toBe(200)
    expect(contentType).toMatch(/^application\/json/)
    expect(body).toEqual({ status: 'success', result: { status: 'ok' } })
  })

  it('/ready: 200 when ClickHouse, Redis and the schema are there', async () => {
    const { status, body } = await getJson(`${api.baseUrl}/ready`)
    expect(status).toBe(200)
    expect(body).toEqual({ status: 'success', result: { status: 'ready' } })
  })

  it('/ready: 503 naming Redis when Redis is unreachable; /health stays 200', async () => {
    const broken = await startTestApi(rt, { redisUrl: 'redis://127.0.0.1:1' })
    try {
      const started = Date.now()
      const { status, body } = await getJson(`${broken.baseUrl}/ready`)
      expect(status).toBe(503)
      expect(body).toEqual({ status: 'error', message: 'not ready: redis is unreachable' })
      expect(Date.now() - started).toBeLessThan(5_000)
      expect((await getJson(`${broken.baseUrl}/health`)).status).toBe(200)
    } finally {
      await broken.close()
    }
  })

  it('/ready: 503 when a migration is not recorded as applied', async () => {
    // The API's tables, but a migrations table with nothing recorded in it.
    const empty = tablesFor(`${rt.tables.database}_unmigrated`)
    await migrate(rt.clickhouse, empty, [])
    const unmigrated = await startTestApi({ ...rt, tables: { ...rt.tables, migrations: empty.migrations } })
    try {
      const { status, body } = await getJson(`${unmigrated.baseUrl}/ready`)
      expect(status).toBe(503)
      expect(body).toEqual({ status: 'error', message: 'not ready: schema migrations are not applied' })
    } finally {
      await unmigrated.close()
      await rt.clickhouse.command({ query: `DROP DATABASE IF EXISTS ${empty.database}` })
    }
  })

  it('/ready: 503 naming ClickHouse when it stops answering, 200 again when it is back', async () => {
    // The runtime's client, whose queries fail while `down` is set.
    let down = false
    const clickhouse = new Proxy(rt.clickhouse, {
      get(target, property) {
        if (property === 'query' && down) return () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:8123'))
        const value: unknown = Reflect.get(target, property)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const flaky = await startTestApi({ ...rt, clickhouse })
    try {
      down = true
      const { status, body } = await getJson(`${flaky.baseUrl}/ready`)
      expect(status).toBe(503)
      expect(body).toEqual({ status: 'error', message: 'not ready: clickhouse is unreachable' })
      down = false
      expect((await getJson(`${flaky.baseUrl}/ready`)).status).toBe(200)
    } finally {
      await flaky.close()
    }
  })
})
