import type { Server, ServerResponse } from 'node:http'

/**
 * On shutdown, server.close() stops accepting and closes idle connections, but a
 * keep-alive connection whose request is in flight would stay open after its response
 * until HTTP_KEEP_ALIVE_TIMEOUT_MS. This tracks the responses in flight so that, once
 * draining, each one closes its connection as soon as it is sent (`Connection: close`).
 */
export class ConnectionDrainer {
  private readonly inFlight = new Set<ServerResponse>()
  private draining = false

  constructor(private readonly server: Server) {
    server.on('request', (_req, res: ServerResponse) => {
      if (this.draining) {
        this.closeWhenSent(res)
        return
      }
      this.inFlight.add(res)
      res.once('close', () => this.inFlight.delete(res))
    })
  }

  /** Call right after server.close(): idle connections close now, busy ones after their response. */
  begin(): void {
    this.draining = true
    for (const res of this.inFlight) this.closeWhenSent(res)
    this.inFlight.clear()
    this.server.closeIdleConnections()
  }

  private closeWhenSent(res: ServerResponse): void {
    if (!res.headersSent) {
      res.setHeader('Connection', 'close')
      return
    }
    // Headers already out (keep-alive promised): close it once it has gone idle.
    res.once('finish', () => setImmediate(() => this.server.closeIdleConnections()))
  }
}
