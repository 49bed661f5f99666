import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/** Every response carries a request id: the client's when it is a plain token, a new one otherwise. */
describe('X-Request-Id', () => {
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

  it('is set on every response, errors included, and differs between requests', async () => {
    const ids = new Set<string>()
    for (const path of ['/tokens', '/no/such/path', '/swap-transactions', '/health']) {
      const res = await fetch(`${api.baseUrl}${path}`)
      const id = res.headers.get('x-request-id')
      expect(id, path).toMatch(/^[0-9a-f-]{36}$/)
      ids.add(id!)
    }
    expect(ids.size).toBe(4)
  })

  it("keeps the client's id when it is a plain token, replaces anything else", async () => {
    const kept = await fetch(`${api.baseUrl}/tokens`, { headers: { 'x-request-id': 'trace-42.a_b:c' } })
    expect(kept.headers.get('x-request-id')).toBe('trace-42.a_b:c')
    const replaced = await fetch(`${api.baseUrl}/tokens`, { headers: { 'x-request-id': 'bad id <script>' } })
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})
