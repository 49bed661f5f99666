/** The load generator the API benchmarks share: autocannon from a worker thread, and the hello-world reference. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import autocannon from 'autocannon'
import express from 'express'

export interface LoadOptions {
  connections: number
  durationS: number
  headers?: Record<string, string>
}

export interface LoadResult {
  rps: number
  non2xx: number
  errors: number
}

/**
 * Requests/s at `connections` connections for `durationS`, from a worker thread (so the
 * load generator does not share the event loop of servers in this process).
 */
export async function cannon(url: string, options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({ url, headers: options.headers ?? {}, connections: options.connections, duration: options.durationS, workers: 1 })
  return { rps: result.requests.total / result.duration, non2xx: result.non2xx, errors: result.errors }
}

export function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  })
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/** The reference the API's throughput targets are stated against: Express answering `{"hello":"world"}` on GET /. */
export async function startHelloWorld(): Promise<{ server: Server; url: string }> {
  const app = express()
  app.get('/', (_req, res) => {
    res.json({ hello: 'world' })
  })
  const server = createServer(app)
  const port = await listen(server)
  return { server, url: `http://127.0.0.1:${port}/` }
}
