import type { ServerResponse } from 'node:http'
import type { Counter, Gauge } from 'prom-client'

/** How long an ended stream's connection may take to accept its last bytes before it is cut. */
const END_GRACE_MS = 10_000

/** One Server-Sent Events frame: `id`, `event` and one `data` line (JSON holds no line breaks). */
export function sseFrame(event: string, data: string, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`
}

/**
 * The headers a stream opens with: no compression (it would hold frames back), no caching,
 * no proxy buffering; and the connection closes with the stream, so that a stream the
 * server ends frees its socket once the client has taken the last bytes.
 */
export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'close',
} as const

/** What a stream's writers count in GET /metrics: the open streams, and those the server ended by reason. */
export interface StreamMeters {
  clients: Gauge
  ended: Counter<'reason'>
}

/**
 * A Server-Sent Events response. Frames are written as they come; the bytes the connection
 * has not taken yet (res.writableLength) are what the client costs the server, and its
 * owner closes it (`close`) once they pass `maxPendingBytes` (tooSlow).
 */
export class SseWriter {
  private ended = false

  constructor(
    private readonly res: ServerResponse,
    private readonly maxPendingBytes: number,
    private readonly meters: StreamMeters,
    private readonly onEnd: () => void,
  ) {
    meters.clients.inc()
    res.once('close', () => this.finish())
  }

  /** Sends the headers (EVENT_STREAM_HEADERS) at once. */
  open(retryMs: number): void {
    this.res.writeHead(200, EVENT_STREAM_HEADERS)
    this.res.socket?.setNoDelay(true)
    this.res.socket?.setTimeout(0)
    this.res.write(`retry: ${retryMs}\n\n`)
  }

  get isOpen(): boolean {
    return !this.ended
  }

  /** Whether more than the bound waits for the connection. */
  get tooSlow(): boolean {
    return this.res.writableLength > this.maxPendingBytes
  }

  /** Writes a frame; false when the stream is closed. */
  write(frame: string): boolean {
    if (this.ended) return false
    this.res.write(frame)
    return true
  }

  /**
   * Writes a frame and, once the response's buffer is full, waits until the connection has
   * taken it (a backlog at the client's pace); a connection that takes nothing for `stallMs`
   * is closed as slow.
   */
  async writePaced(frame: string, stallMs: number): Promise<void> {
    if (this.ended || this.res.write(frame)) return
    let timer: NodeJS.Timeout | undefined
    const stalled = await Promise.race([this.drained().then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, stallMs, true)))])
    clearTimeout(timer)
    if (stalled) this.closeAsSlow()
  }

  comment(text: string): void {
    if (!this.ended) this.res.write(`: ${text}\n\n`)
  }

  /** Resolves once the connection has taken what is pending (or the stream ended); 'drain' comes only after a write found the buffer full. */
  drained(): Promise<void> {
    if (this.ended || this.res.writableLength === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done)
        this.res.off('close', done)
        resolve()
      }
      this.res.once('drain', done)
      this.res.once('close', done)
    })
  }

  /** Closes the stream if more than the bound waits (tooSlow); true if it did. */
  closeIfTooSlow(): boolean {
    if (this.ended || !this.tooSlow) return false
    this.closeAsSlow()
    return true
  }

  /** Closes the stream of a client that let more than the bound wait. */
  closeAsSlow(): void {
    this.close('slow_client', `more than ${this.maxPendingBytes} bytes were waiting to be sent to this client: reconnect with the last event id to resume`)
  }

  /** The final `closed` event, then the end of the response; a connection that does not take it within END_GRACE_MS is cut. */
  close(reason: 'slow_client' | 'shutdown' | 'unavailable', message: string): void {
    if (this.ended) return
    this.res.write(sseFrame('closed', JSON.stringify({ reason, message })))
    this.res.end()
    this.meters.ended.inc({ reason })
    const cut = setTimeout(() => this.res.destroy(), END_GRACE_MS)
    cut.unref()
    this.res.once('close', () => clearTimeout(cut))
    this.finish()
  }

  private finish(): void {
    if (this.ended) return
    this.ended = true
    this.meters.clients.dec()
    this.onEnd()
  }
}
