import { request as httpRequest } from 'node:http'
import { startApiServer } from '../../api/api-server.js'
import type { Config } from '../../shared/platform/config.js'
import type { Runtime } from '../../shared/runtime.js'

export interface TestApi {
  /** e.g. http://127.0.0.1:43121 (no trailing slash) */
  baseUrl: string
  close(): Promise<void>
}

export interface TestApiOptions {
  /** Point the API at another Redis (e.g. redis://127.0.0.1:1 to make it fail). */
  redisUrl?: string
  /** How long GET /technical-analysis waits for an on-demand computation. */
  onDemandWaitMs?: number
}

/** The real API for a test runtime, on 127.0.0.1 and a free port. */
export async function startTestApi(runtime: Runtime, options: TestApiOptions = {}): Promise<TestApi> {
  const config: Config = {
    ...runtime.config,
    redis: { ...runtime.config.redis, url: options.redisUrl ?? runtime.config.redis.url },
    indicators: {
      ...runtime.config.indicators,
      onDemandWaitMs: options.onDemandWaitMs ?? runtime.config.indicators.onDemandWaitMs,
    },
  }
  const api = await startApiServer({ ...runtime, config }, 0, '127.0.0.1')
  return { baseUrl: `http://127.0.0.1:${api.port}`, close: () => api.close() }
}

export interface JsonResponse<T = unknown> {
  status: number
  /** The parsed JSON body (undefined if the body was empty). */
  body: T
  contentType: string | undefined
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  /** Sent as is, also with GET (fetch refuses a GET body; node:http does not). */
  body?: string
}

/** A plain HTTP request whose response body must be JSON (it throws otherwise). */
export function getJson<T = any>(url: string, init: RequestOptions = {}): Promise<JsonResponse<T>> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers }
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body))
    const req = httpRequest(url, { method: init.method ?? 'GET', headers }, (res) => {
      // An event stream (GET /stream/…) never ends: its status and type are the answer.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, body: undefined as T, contentType: res.headers['content-type'] })
        res.destroy()
        return
      }
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        try {
          resolve({
            status: res.statusCode ?? 0,
            body: (text === '' ? undefined : JSON.parse(text)) as T,
            contentType: res.headers['content-type'],
          })
        } catch {
          reject(new Error(`${url}: response is not JSON (status ${res.statusCode}): ${text.slice(0, 200)}`))
        }
      })
    })
    req.on('error', reject)
    if (init.body !== undefined) req.write(init.body)
    req.end()
  })
}

/** GET with a JSON body. */
export function getJsonWithBody<T = any>(url: string, body: unknown): Promise<JsonResponse<T>> {
  return getJson<T>(url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}
