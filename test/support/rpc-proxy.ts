import { createServer, type Server } from 'node:http'
import { freePort } from './private-redis.js'

export interface RpcRequest {
  id: number | string
  method: string
  params?: unknown[]
}

/**
 * A JSON-RPC proxy in front of a node, on a port of its own: it records every call (single
 * or batched), answers the `refuse`d methods as a node without them does (-32601, "Method
 * not found"), answers a call with the error `failWith` returns for it (a provider's
 * refusal), and can be closed (connections refused) and opened again on the same port.
 */
export interface RpcProxy {
  url: string
  /** Every call forwarded or refused, in arrival order. */
  calls: RpcRequest[]
  open(): Promise<void>
  close(): Promise<void>
}

export interface RpcProxyOptions {
  refuse?: readonly string[]
  failWith?: (call: RpcRequest) => { code: number; message: string } | undefined
}

export async function startRpcProxy(target: string, options: RpcProxyOptions = {}): Promise<RpcProxy> {
  const port = await freePort()
  const refusedMethods = new Set(options.refuse ?? [])
  const errorOf = (r: RpcRequest) =>
    refusedMethods.has(r.method) ? { code: -32601, message: `Method not found: ${r.method}` } : options.failWith?.(r)
  const calls: RpcRequest[] = []
  let server: Server | null = null

  const answer = async (requests: RpcRequest[]): Promise<unknown[]> => {
    calls.push(...requests)
    const errors = requests.map(errorOf)
    const forward = requests.filter((_, i) => errors[i] === undefined)
    const answers = new Map<RpcRequest['id'], unknown>()
    if (forward.length > 0) {
      const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forward) })
      for (const a of (await res.json()) as Array<{ id: RpcRequest['id'] }>) answers.set(a.id, a)
    }
    return requests.map((r, i) => (errors[i] ? { jsonrpc: '2.0', id: r.id, error: errors[i] } : answers.get(r.id)))
  }

  const proxy: RpcProxy = {
    url: `http://127.0.0.1:${port}`,
    calls,
    open() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[]
          answer(Array.isArray(body) ? body : [body])
            .then((out) => {
              res.writeHead(200, { 'content-type': 'application/json' })
              res.end(JSON.stringify(Array.isArray(body) ? out : out[0]))
            })
            .catch(() => res.destroy())
        })
      })
      return new Promise((resolve) => server!.listen(port, '127.0.0.1', () => resolve()))
    },
    close() {
      return new Promise((resolve) => {
        if (!server?.listening) return resolve()
        server.closeAllConnections()
        server.close(() => resolve())
      })
    },
  }
  await proxy.open()
  return proxy
}
