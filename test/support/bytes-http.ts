import { request, type IncomingHttpHeaders } from 'node:http'
import { csvCells, opensQuote } from '../../ingest/cli/backfill/csv-fields.js'

export interface BytesResponse {
  status: number
  headers: IncomingHttpHeaders
  /** The body exactly as sent (still compressed, if it was). */
  body: Buffer
}

/** A request whose response is taken as bytes, undecoded (fetch would decompress it behind our back). */
export function fetchBytes(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<BytesResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      // An event stream (GET /stream/…) never ends: its status and headers are the answer, with no body.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) })
        res.destroy()
        return
      }
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A JSON body, parsed. */
export function jsonOf<T = any>(res: BytesResponse): T {
  return JSON.parse(res.body.toString('utf8')) as T
}

/**
 * CSV text as records of cells, read with the backfill's own RFC 4180 reader (not the
 * writer under test): a record runs on across lines while a quote is open.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let pending = ''
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (const line of lines) {
    pending = pending === '' ? line : `${pending}\n${line}`
    if (opensQuote(pending)) continue
    const cells = csvCells(pending)
    if (!Array.isArray(cells)) throw new Error(`unreadable CSV record: ${cells.problem}: ${pending}`)
    records.push(cells)
    pending = ''
  }
  if (pending !== '') throw new Error(`CSV ends inside a quoted field: ${pending}`)
  return records
}
