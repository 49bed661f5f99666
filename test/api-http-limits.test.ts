import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer, type ApiServer } from '../api/api-server.js'
import { loadConfig } from '../shared/platform/config.js'
import { openSocket, trickle, untilClosed } from './support/raw-http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const HEADERS_TIMEOUT_MS = 1_000
const REQUEST_TIMEOUT_MS = 2_000
const GRACE_MS = 500

/** Slow clients, the connection cap and shutdown, with short configured limits. */
describe('HTTP timeouts, connection cap, shutdown', () => {
  let rt: TestRuntime

  beforeAll(async () => {
    rt = await createTestRuntime({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      HTTP_MAX_CONNECTIONS: '3',
    })
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  async function withApi(run: (api: ApiServer) => Promise<void>): Promise<void> {
    const api = await startApiServer(rt, 0, '127.0.0.1')
    try {
      await run(api)
    } finally {
      await api.close()
    }
  }

  it('the settings are validated: the header deadline may not exceed the request deadline', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    )
    const defaults = loadConfig({})
    expect(defaults.host).toBe('127.0.0.1')
    expect(defaults.http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
      shutdownGraceMs: 5_000,
    })
  })

  it('a client sending its headers at 1 byte/s is cut off with a JSON 408 at the header deadline', async () => {
    await withApi(async (api) => {
      const socket = await openSocket(api.port)
      const closed = untilClosed(socket)
      const sender = trickle(socket, 'GET /tokens HTTP/1.1\r\nHost: t\r\n\r\n', 1_000)
      const r = await closed
      expect(r.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000)
      expect(sender.bytesSent()).toBeLessThan(4) // of 34: cut off mid-request
      expect(r.status).toBe(408)
      expect(r.json).toEqual({ status: 'error', message: 'The request was not received in time' })
    })
  })

  it('a client sending its body at 1 byte/s is cut off at the request deadline', async () => {
    await withApi(async (api) => {
      const socket = await openSocket(api.port)
      const closed = untilClosed(socket)
      const body = JSON.stringify({ contract_address: '0x'.padEnd(42, '0') })
      socket.write(
        `GET /technical-analysis HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      )
      const sender = trickle(socket, body, 1_000)
      const r = await closed
      expect(r.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_000)
      expect(sender.bytesSent()).toBeLessThan(5)
      expect(r.status).toBe(408)
      expect(r.headers['content-type']).toMatch(/^application\/json/)
    })
  })

  it('connections beyond HTTP_MAX_CONNECTIONS are closed at once; a slot frees when one closes', async () => {
    await withApi(async (api) => {
      const held = await Promise.all([openSocket(api.port), openSocket(api.port), openSocket(api.port)])
      const extra = await openSocket(api.port)
      const refused = await untilClosed(extra, 5_000)
      expect(refused.text).toBe('')
      expect(refused.closedAfterMs).toBeLessThan(1_000)
      const first = held.shift()!
      const firstClosed = untilClosed(first)
      first.destroy()
      await firstClosed
      await new Promise((resolve) => setTimeout(resolve, 100))
      const next = await openSocket(api.port)
      const answered = untilClosed(next)
      next.write('GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
      expect((await answered).status).toBe(200)
      for (const socket of held) socket.destroy()
    })
  })

  it('shutdown does not wait for idle keep-alive connections', async () => {
    const api = await startApiServer(rt, 0, '127.0.0.1')
    const agent = new Agent({ keepAlive: true })
    try {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        request({ host: '127.0.0.1', port: api.port, path: '/health', agent }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode))
        })
          .on('error', reject)
          .end()
      })
      expect(status).toBe(200)
      const started = Date.now()
      await api.close()
      expect(Date.now() - started).toBeLessThan(GRACE_MS)
    } finally {
      agent.destroy()
    }
  })

  it('shutdown lets a request in flight finish, then closes its keep-alive connection without waiting', async () => {
    const patient = { ...rt, config: { ...rt.config, http: { ...rt.config.http, shutdownGraceMs: 10_000 } } }
    const api = await startApiServer(patient, 0, '127.0.0.1')
    const socket = await openSocket(api.port)
    const closed = untilClosed(socket)
    const body = JSON.stringify({ contract_address: 'not an address' })
    socket.write(`GET /technical-analysis HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = Date.now()
    const closing = api.close()
    socket.write(body)
    await closing
    expect(Date.now() - started).toBeLessThan(2_000)
    const r = await closed
    expect(r.status).toBe(400)
    expect(r.headers['connection']).toBe('close')
    expect(r.json).toMatchObject({ status: 'error', message: expect.stringContaining('contract_address') })
  })

  it('shutdown closes a connection whose request is still in flight after the grace period', async () => {
    // A long request deadline, so only the grace period can end the request.
    const patient = { ...rt, config: { ...rt.config, http: { ...rt.config.http, requestTimeoutMs: 60_000 } } }
    const api = await startApiServer(patient, 0, '127.0.0.1')
    const socket = await openSocket(api.port)
    const closed = untilClosed(socket)
    // Headers complete, body never finishes: a request in flight until the request deadline.
    socket.write('GET /technical-analysis HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{')
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = Date.now()
    await api.close()
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 50)
    expect(took).toBeLessThan(GRACE_MS + 1_000)
    expect((await closed).text).toBe('')
  })
})
