import { request, Agent, type OutgoingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib'
import { Prng } from '../../ingest/sample-data/prng.js'

/**
 * Fuzzed requests against the running API: paths from the real routes with hostile
 * parameters, methods, headers and bodies, plus malformed HTTP on raw sockets. Every
 * response must be the JSON envelope (`{"status":"success","result":...}` or
 * `{"status":"error","message":"..."}`) and none may be a 5xx. GET /metrics (Prometheus
 * text) and GET / (the chart page) are not JSON by design: only their status is checked.
 */

export interface FuzzKnownValues {
  hashes: string[]
  tokens: string[]
  wallets: string[]
  startMs: number
  endMs: number
}

export interface FuzzResult {
  requests: number
  raw: number
  byStatus: Map<number, number>
  /** Responses that are not the JSON envelope (status, request, body start). */
  outsideEnvelope: string[]
  serverErrors: string[]
  /** GET /ready's 503s (a dependency did not answer its check in time): by design, not counted as 5xx. */
  notReady: number
  /** Raw-socket requests the server closed without any answer. */
  closedWithoutAnswer: number
  transportErrors: string[]
}

const ROUTES = [
  '/health',
  '/ready',
  '/metrics',
  '/tokens',
  '/tokens/:contract_address',
  '/tokens/:contract_address/candles',
  '/holdings',
  '/holdings/token/:contract_address',
  '/holdings/:id',
  '/swap-transactions',
  '/swap-transactions/:hash',
  '/technical-analysis',
  '/technical-analysis/history',
]

const PARAMS = ['limit', 'offset', 'start_time', 'end_time', 'address', 'token_id', 'contract_address', 'cursor', 'interval', 'x']

const HOSTILE = [
  '', ' ', '-1', '0', '1', '501', '1000', '1001', '1.5', '1e3', '1e400', 'NaN', 'Infinity', '-0', '0x10', '00001',
  '9007199254740993', '99999999999999999999999999', 'null', 'true', '[]', '{}', "' OR 1=1 --", '"; DROP TABLE tokens;',
  '../../etc/passwd', '%00', '\u0000', '\ud800', '😀😀', 'ñ', '<script>alert(1)</script>', '{x:String}', '{{x}}',
  '0x', '0xZZZZ', 'a'.repeat(5_000), '1'.repeat(400), 'eyJ2IjoxfQ', 'eyJ2IjoxLCJ0IjoxfQ==', '%', '%E0%A4%A', '1h', '4h', '1d', '7x',
]

const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'FOO', 'PROPFIND']

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '*/*', 'application/json; charset=nope']

function encodeRaw(value: string, prng: Prng): string {
  // Mostly proper encoding; sometimes the raw text (broken percent signs and all), with only
  // what an HTTP request line cannot carry (controls, spaces, non-ASCII) escaped as bytes.
  if (prng.next() < 0.25) {
    let out = ''
    for (const byte of Buffer.from(value, 'utf8')) {
      const c = String.fromCharCode(byte)
      out += byte > 0x20 && byte < 0x7f && !'#&?/'.includes(c) ? c : `%${byte.toString(16).padStart(2, '0').toUpperCase()}`
    }
    return out
  }
  try {
    return encodeURIComponent(value)
  } catch {
    return '%ED%A0%80' // a lone surrogate cannot be encoded as UTF-8: send its bytes anyway
  }
}

function paramValue(prng: Prng, known: FuzzKnownValues): string {
  const r = prng.next()
  if (r < 0.15) return prng.pick(known.hashes)
  if (r < 0.3) return prng.pick(known.tokens)
  if (r < 0.4) return prng.pick(known.wallets)
  if (r < 0.5) return String(prng.int(known.startMs - 86_400_000, known.endMs + 86_400_000))
  if (r < 0.55) return `${prng.pick(known.wallets)}-${prng.pick(known.tokens)}`
  if (r < 0.6) return prng.pick(known.tokens).toUpperCase()
  return prng.pick(HOSTILE)
}

function fuzzPath(prng: Prng, known: FuzzKnownValues): string {
  const r = prng.next()
  let path: string
  if (r < 0.05) path = `/${encodeRaw(prng.pick(HOSTILE), prng)}`
  else if (r < 0.08) path = prng.pick(['//tokens', '/tokens/', '/TOKENS', '/tokens/../holdings', '/swap-transactions/%2e%2e', '/tokens/%ZZ', '/%', '/tokens/a/b/c/d'])
  else path = prng.pick(ROUTES).replace(/:[a-z_]+/g, () => encodeRaw(paramValue(prng, known), prng))
  const params: string[] = []
  const count = prng.int(0, 5)
  for (let i = 0; i < count; i++) {
    const name = prng.pick(PARAMS)
    const shape = prng.next()
    const key = shape < 0.08 ? `${name}[]` : shape < 0.12 ? `${name}[a][b]` : shape < 0.14 ? encodeRaw(prng.pick(HOSTILE), prng) : name
    params.push(`${key}=${encodeRaw(paramValue(prng, known), prng)}`)
    if (prng.next() < 0.05) params.push(`${key}=${encodeRaw(paramValue(prng, known), prng)}`) // repeated
  }
  // A valid time range now and then, so the swap list does real work.
  if (path.startsWith('/swap-transactions') && prng.next() < 0.5) {
    params.push(`start_time=${known.startMs + prng.int(0, 30) * 86_400_000}`, `end_time=${known.endMs - prng.int(0, 30) * 86_400_000}`)
  }
  return params.length > 0 ? `${path}?${params.join('&')}` : path
}

function deepJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

function fuzzBody(prng: Prng, known: FuzzKnownValues): { body?: Buffer; headers: OutgoingHttpHeaders } {
  const r = prng.next()
  const headers: OutgoingHttpHeaders = {}
  if (r < 0.5) return { headers }
  headers['content-type'] = prng.pick(CONTENT_TYPES)
  let text: string
  if (r < 0.65) text = JSON.stringify({ [prng.pick(PARAMS)]: paramValue(prng, known), [prng.pick(PARAMS)]: paramValue(prng, known) })
  else if (r < 0.72) text = JSON.stringify(prng.pick([null, 1, 'x', [1, 2], true, { token_id: 5 }, { contract_address: ['a'] }]))
  else if (r < 0.8) text = prng.pick(['{', '{"token_id":', '{"a":1}}', 'nul', '\u0000\u0001', '{"token_id":"\\ud800"}', "{'a':1}"])
  else if (r < 0.85) text = deepJson(prng.pick([100, 5_000, 50_000]))
  else if (r < 0.9) text = JSON.stringify({ token_id: 'x'.repeat(prng.pick([1_000, 20_000, 100_000])) })
  else text = Buffer.from(Array.from({ length: prng.int(1, 2_000) }, () => prng.int(0, 255))).toString('latin1')
  let body = Buffer.from(text, prng.next() < 0.9 ? 'utf8' : 'latin1')
  const e = prng.next()
  if (e < 0.05) headers['content-encoding'] = 'gzip' // not gzip at all
  else if (e < 0.1) {
    headers['content-encoding'] = 'gzip'
    body = gzipSync(body)
  } else if (e < 0.13) headers['content-encoding'] = 'br, zstd, nonsense'
  // Node's client frames a GET or HEAD body only when told its length; unframed (1 in 10),
  // the body reaches the server as the start of the next request: malformed HTTP, on purpose.
  if (prng.next() < 0.9) headers['content-length'] = String(body.length)
  if (prng.next() < 0.01) headers['content-length'] = String(body.length + prng.int(1, 10)) // promises more than it sends: a 408
  return { body, headers }
}

function fuzzHeaders(prng: Prng): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {}
  const r = prng.next()
  if (r < 0.2) headers.accept = prng.pick(['text/html', 'application/xml', '*/*', 'application/json', 'image/png'])
  if (prng.next() < 0.1) headers['x-request-id'] = prng.pick(['abc', 'x'.repeat(500), 'ä', '../', 'id with spaces'])
  if (prng.next() < 0.05) headers['x-filler'] = 'f'.repeat(prng.pick([100, 8_000, 15_000]))
  if (prng.next() < 0.05) headers.authorization = prng.pick(['Bearer x', 'Basic ????', ''])
  if (prng.next() < 0.05) headers['accept-encoding'] = prng.pick(['gzip', 'br', 'identity;q=0, *;q=0', 'nonsense'])
  if (prng.next() < 0.03) headers.range = 'bytes=0-10'
  if (prng.next() < 0.03) headers['if-none-match'] = '*'
  return headers
}

/** Malformed HTTP that the server must still answer in the envelope (or just close). */
const RAW_REQUESTS = [
  'GARBAGE\r\n\r\n',
  'GET\r\n\r\n',
  'GET /tokens HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /tokens HTTP/1.1\r\nHost: x\r\nNoColonHeader\r\n\r\n',
  'GET /tokens HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'GET /tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'GET /tokens HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n',
  `GET /tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'GET /tokens\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /tokens HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
  'GET /tökens HTTP/1.1\r\nHost: x\r\n\r\n',
  '\r\n\r\n\r\n',
  'GET /tokens HTTP/1.1\nHost: x\n\n',
  'GET /tokens HTTP/1.1\r\n Host: x\r\n\r\n',
]

function rawExchange(port: number, text: string): Promise<{ answer: string; error?: string }> {
  return new Promise((resolve) => {
    let answer = ''
    const socket = connect(port, '127.0.0.1', () => socket.end(text, 'latin1'))
    socket.setTimeout(15_000, () => socket.destroy())
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')))
    socket.on('error', (err) => resolve({ answer, error: err.message }))
    socket.on('close', () => resolve({ answer }))
  })
}

function isEnvelope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const v = value as Record<string, unknown>
  if (v.status === 'success') return 'result' in v
  return v.status === 'error' && typeof v.message === 'string' && v.message.length > 0
}

/** The body as the client asked for it (`accept-encoding`): compressed answers are decoded first; one that does not decode stays raw and fails the envelope check. */
function decoded(body: Buffer, encoding: string): string {
  try {
    if (encoding === 'gzip') return gunzipSync(body).toString('utf8')
    if (encoding === 'br') return brotliDecompressSync(body).toString('utf8')
    if (encoding === 'deflate') return inflateSync(body).toString('utf8')
  } catch {
    // fall through: the raw bytes
  }
  return body.toString('utf8')
}

function checkResponse(status: number, contentType: string, body: string, method: string, label: string, result: FuzzResult): void {
  result.byStatus.set(status, (result.byStatus.get(status) ?? 0) + 1)
  // GET /ready answers 503 by design when a check does not answer within 2 s (counted apart).
  const readiness = status === 503 && /^\/ready\/?(\?|$)/i.test(label.split(' ')[1] ?? '')
  if (readiness) result.notReady++
  else if (status >= 500) result.serverErrors.push(`${status} ${label} ${body.slice(0, 200)}`)
  if (method === 'HEAD' || status === 304) return
  // Not JSON by design: GET /metrics is Prometheus text, GET / the chart page (HTML; it reads no
  // parameter, and a Range header gets a part of it, 206, as any static file).
  if (/^\/(metrics\/?)?(\?|$)/i.test(label.split(' ')[1] ?? '') && (status === 200 || status === 206)) return
  let parsed: unknown
  try {
    parsed = contentType.includes('application/json') ? JSON.parse(body) : undefined
  } catch {
    parsed = undefined
  }
  if (!isEnvelope(parsed)) result.outsideEnvelope.push(`${status} ${label} [${contentType}] ${JSON.stringify(body.slice(0, 200))}`)
}

export async function fuzzHttp(port: number, known: FuzzKnownValues, total: number, seed: number, concurrency = 16): Promise<FuzzResult> {
  const prng = new Prng(seed)
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const result: FuzzResult = {
    requests: 0,
    raw: 0,
    byStatus: new Map(),
    outsideEnvelope: [],
    serverErrors: [],
    notReady: 0,
    closedWithoutAnswer: 0,
    transportErrors: [],
  }
  const rawCount = Math.round(total * 0.03)
  let next = 0

  const one = async (i: number): Promise<void> => {
    if (i < rawCount) {
      const text = RAW_REQUESTS[i % RAW_REQUESTS.length]!
      const { answer, error } = await rawExchange(port, text)
      result.raw++
      result.requests++
      if (answer === '') {
        result.closedWithoutAnswer++
        result.transportErrors.push(`raw ${JSON.stringify(text.slice(0, 60))}: closed without an answer${error ? ` (${error})` : ''}`)
        return
      }
      const end = answer.indexOf('\r\n\r\n')
      const head = end < 0 ? answer : answer.slice(0, end)
      const status = Number(head.split(' ')[1])
      const contentType = /content-type:\s*([^\r\n]*)/i.exec(head)?.[1] ?? ''
      const lengthMatch = /content-length:\s*(\d+)/i.exec(head)
      const body = end < 0 ? '' : answer.slice(end + 4, lengthMatch ? end + 4 + Number(lengthMatch[1]) : undefined)
      checkResponse(status, contentType, body, 'RAW', `RAW ${JSON.stringify(text.slice(0, 60))}`, result)
      return
    }
    const method = prng.pick(METHODS)
    const path = fuzzPath(prng, known)
    const { body, headers: bodyHeaders } = method === 'HEAD' && prng.next() < 0.7 ? { body: undefined, headers: {} } : fuzzBody(prng, known)
    const headers = { ...fuzzHeaders(prng), ...bodyHeaders }
    const label = `${method} ${path.slice(0, 300)}`
    await new Promise<void>((resolve) => {
      let req
      try {
        req = request({ host: '127.0.0.1', port, method, path, headers, agent, timeout: 30_000 }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (d: Buffer) => chunks.push(d))
          res.on('end', () => {
            const text = decoded(Buffer.concat(chunks), String(res.headers['content-encoding'] ?? ''))
            checkResponse(res.statusCode ?? 0, String(res.headers['content-type'] ?? ''), text, method, label, result)
            resolve()
          })
          res.on('error', (err) => {
            result.transportErrors.push(`${label}: ${err.message}`)
            resolve()
          })
        })
      } catch (err) {
        // The client itself refused the request (e.g. a character Node will not send): not sent.
        result.transportErrors.push(`${label}: not sent: ${err instanceof Error ? err.message : String(err)}`)
        resolve()
        return
      }
      req.on('timeout', () => req.destroy(new Error('no answer within 30 s')))
      req.on('error', (err) => {
        result.transportErrors.push(`${label}: ${err.message}`)
        resolve()
      })
      if (body !== undefined) req.end(body)
      else req.end()
    })
    result.requests++
  }

  const workers = Array.from({ length: concurrency }, async () => {
    while (next < total) await one(next++)
  })
  await Promise.all(workers)
  agent.destroy()
  return result
}
