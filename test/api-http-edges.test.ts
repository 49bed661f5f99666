import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KNOWN_PATHS } from '../api/known-paths.js'
import { addressFor, hashFor } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { rawExchange } from './support/raw-http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/** Responses outside the routes: unreadable requests, other methods, structured parameters. */
describe('HTTP edges: every response is the JSON envelope', () => {
  let rt: TestRuntime
  let api: TestApi
  let port: number

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    port = Number(new URL(api.baseUrl).port)
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  describe('requests the server cannot read', () => {
    it('oversized headers: 431 JSON', async () => {
      const big = 'x'.repeat(20_000)
      const r = await rawExchange(port, `GET /tokens HTTP/1.1\r\nHost: t\r\nX-Big: ${big}\r\n\r\n`)
      expect(r.status).toBe(431)
      expect(r.headers['content-type']).toMatch(/^application\/json/)
      expect(r.json).toEqual({ status: 'error', message: 'The request headers are too large' })
    })

    it('a malformed request line: 400 JSON', async () => {
      const r = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n')
      expect(r.status).toBe(400)
      expect(r.headers['content-type']).toMatch(/^application\/json/)
      expect(r.json).toEqual({ status: 'error', message: 'The request is not valid HTTP' })
    })

    it('a malformed header: 400 JSON', async () => {
      const r = await rawExchange(port, 'GET /tokens HTTP/1.1\r\nHost: t\r\nBad Header Name: 1\r\n\r\n')
      expect(r.status).toBe(400)
      expect(r.json).toEqual({ status: 'error', message: 'The request is not valid HTTP' })
    })
  })

  describe('methods other than GET and HEAD', () => {
    it('OPTIONS /tokens: 405 JSON with Allow: GET, HEAD (not Express text/plain 200)', async () => {
      const r = await rawExchange(port, 'OPTIONS /tokens HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
      expect(r.status).toBe(405)
      expect(r.headers['allow']).toBe('GET, HEAD')
      expect(r.headers['content-type']).toMatch(/^application\/json/)
      expect(r.json).toEqual({ status: 'error', message: 'Method OPTIONS is not allowed on /tokens; use GET or HEAD' })
    })

    it.each([
      ['POST', '/tokens'],
      ['PUT', `/tokens/${addressFor('weth')}`],
      ['DELETE', '/holdings'],
      ['PATCH', `/swap-transactions/${hashFor('one')}`],
      ['POST', '/technical-analysis'],
      ['OPTIONS', '/ready'],
      ['POST', '/tokens/'],
    ])('%s %s: 405 with Allow', async (method, path) => {
      const r = await rawExchange(port, `${method} ${path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
      expect(r.status).toBe(405)
      expect(r.headers['allow']).toBe('GET, HEAD')
      expect(r.json).toMatchObject({ status: 'error' })
    })

    it.each([
      ['OPTIONS', '/nowhere'],
      ['POST', '/tokens/a/b/c'],
      ['OPTIONS', '*'],
    ])('%s %s (unknown path): 404 JSON without Allow', async (method, path) => {
      const r = await rawExchange(port, `${method} ${path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
      expect(r.status).toBe(404)
      expect(r.headers['allow']).toBeUndefined()
      expect(r.json).toMatchObject({ status: 'error', message: expect.stringMatching(/^No such endpoint: /) })
    })

    it('HEAD is still served', async () => {
      const r = await rawExchange(port, 'HEAD /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
      expect(r.status).toBe(200)
    })
  })

  it('every known path is served by a GET route (the 405 list matches the routes)', async () => {
    const sample: Record<string, string> = {
      ':contract_address': addressFor('any'),
      ':id': `${addressFor('wallet')}-${addressFor('any')}`,
      ':hash': hashFor('any'),
    }
    for (const pattern of KNOWN_PATHS) {
      const path = pattern.replace(/:[a-z_]+/g, (param) => sample[param] ?? 'x')
      // Read as text: GET /metrics answers Prometheus's text format, not JSON.
      const res = await fetch(`${api.baseUrl}${path}`)
      // An event stream never ends: being one is being served.
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
        await res.body?.cancel()
        continue
      }
      expect(await res.text(), path).not.toMatch(/No such endpoint/)
    }
  })

  describe('structured query parameters are a 400 on every list route', () => {
    const range = 'start_time=0&end_time=9999999999999'
    const lists = [
      '/tokens?',
      '/holdings?',
      `/holdings/token/${addressFor('any')}?`,
      `/swap-transactions?${range}&`,
      `/tokens/${addressFor('any')}/candles?${range}&`,
    ]
    for (const list of lists) {
      it.each(['limit[]=5', 'limit[a]=1', 'offset[]=0', 'limit=1&limit=2'])(`${list.split('?')[0]} with %s`, async (query) => {
        const { status, body } = await getJson(`${api.baseUrl}${list}${query}`)
        expect(status).toBe(400)
        const name = query.startsWith('offset') ? 'offset' : 'limit'
        expect(body).toEqual({ status: 'error', message: expect.stringContaining(`${name} must be given once, as a single value`) })
      })
    }

    it('also on /technical-analysis', async () => {
      const { status, body } = await getJson(`${api.baseUrl}/technical-analysis?contract_address[]=${addressFor('any')}`)
      expect(status).toBe(400)
      expect(body.message).toContain('contract_address must be given once')
    })
  })
})
