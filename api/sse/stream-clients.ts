import type { ServerResponse } from 'node:http'
import { SseWriter, type StreamMeters } from './sse-writer.js'

/** How long a client with more than maxPendingBytes waiting has to take them before the next run of events is written, or be closed. */
const SLOW_CLIENT_WAIT_MS = 1_000

/** One client of a live stream: its writer and, while it catches up from its Last-Event-ID, the live frames for after it. */
export interface StreamClient {
  writer: SseWriter
  waiting: string[] | null
  waitingBytes: number
}

export interface StreamClientsOptions {
  heartbeatMs: number
  maxPendingBytes: number
  meters: StreamMeters
}

/**
 * The clients of one live stream in one process, what every such stream does with them
 * alike: writers counted in the stream's meters, a heartbeat comment to each while it runs,
 * live frames held back while a client catches up, slow clients closed, every stream
 * closed at shutdown.
 */
export class StreamClients<C extends StreamClient> implements Iterable<C> {
  private readonly clients = new Set<C>()
  private heartbeat: NodeJS.Timeout | null = null

  constructor(private readonly options: StreamClientsOptions) {}

  /** A writer for `res`, counted in the stream's meters; `onEnd` runs once when its stream ends. */
  writer(res: ServerResponse, onEnd: () => void): SseWriter {
    return new SseWriter(res, this.options.maxPendingBytes, this.options.meters, onEnd)
  }

  add(client: C): void {
    this.clients.add(client)
  }

  delete(client: C): void {
    this.clients.delete(client)
  }

  get size(): number {
    return this.clients.size
  }

  [Symbol.iterator](): Iterator<C> {
    return this.clients[Symbol.iterator]()
  }

  /** A `: heartbeat` comment every heartbeatMs to each client not already behind, until stopHeartbeats. */
  startHeartbeats(): void {
    this.stopHeartbeats()
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) if (!client.writer.tooSlow) client.writer.comment('heartbeat')
    }, this.options.heartbeatMs)
  }

  stopHeartbeats(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat)
    this.heartbeat = null
  }

  /** Writes a live frame; a client catching up keeps it for later, and is closed as slow past the bound. False: the client is closed. */
  send(client: C, frame: string): boolean {
    if (client.waiting === null) return client.writer.write(frame)
    client.waiting.push(frame)
    client.waitingBytes += frame.length
    if (client.waitingBytes > this.options.maxPendingBytes) {
      client.writer.closeAsSlow()
      return false
    }
    return true
  }

  /** Closes the live clients that do not bring what waits for them under the bound within SLOW_CLIENT_WAIT_MS. */
  async closeSlow(): Promise<void> {
    const behind = [...this.clients].filter((c) => c.waiting === null && c.writer.tooSlow)
    if (behind.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(behind.map((c) => c.writer.drained())), new Promise((resolve) => (timer = setTimeout(resolve, SLOW_CLIENT_WAIT_MS)))])
    clearTimeout(timer)
    for (const client of behind) client.writer.closeIfTooSlow()
  }

  /** Ends every stream with a `closed` event (shutdown). */
  closeAll(): void {
    for (const client of [...this.clients]) client.writer.close('shutdown', 'the server is shutting down: reconnect to resume')
  }
}
