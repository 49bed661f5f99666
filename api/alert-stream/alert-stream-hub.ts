import type { ServerResponse } from 'node:http'
import type { AlertFiringsStore, FiringPlace } from '../../shared/alerts/alert-firings-store.js'
import { CHANGES_READABLE_MS } from '../../shared/changes/change-feed.js'
import type { Logger } from '../../shared/platform/logger.js'
import { alertStreamClients, alertStreamsEnded } from '../../shared/platform/metrics.js'
import { DAY_MS } from '../../shared/platform/time-units.js'
import { sseFrame } from '../sse/sse-writer.js'
import { StreamClients, type StreamClient } from '../sse/stream-clients.js'
import { StreamPoller } from '../sse/stream-poller.js'
import { formatAlertEventId, isAfter, positionBefore, restartPoint } from './alert-event-id.js'
import { alertEvent, matches, type AlertStreamFilter } from './alert-events.js'

/** Firing versions read at a time. */
const CHUNK_ROWS = 500
/** What a client waits before reconnecting (the SSE `retry` field). */
const RETRY_MS = 1_000
/** How long a client sent its backlog (resuming) may take nothing before it is closed. */
const BACKLOG_STALL_MS = 10_000
/** How far back a resuming client is sent what it missed: as far as GET /stream/swaps resumes. */
export const REPLAY_MS = CHANGES_READABLE_MS

export interface AlertStreamDeps {
  firings: AlertFiringsStore
  /** Embedded: the writes this process has ended (embeddedWritesEnded); null on a server. */
  writesEnded: () => number | null
  heartbeatMs: number
  maxPendingBytes: number
  logger: Logger
}

/** Why a client starts from now rather than after its Last-Event-ID. */
export type AlertRestartReason = 'expired' | 'ahead' | 'store_restarted'

const RESTART_MESSAGES: Record<AlertRestartReason, string> = {
  expired: `the alerts written after this id began more than ${REPLAY_MS / DAY_MS} days ago, more than the stream sends again: it starts again from now (GET /alerts lists them all)`,
  ahead: 'this id is beyond the stored alerts: the stream starts again from now',
  store_restarted: "the store's alert firings started again: the stream starts again from now",
}

interface Client extends StreamClient {
  filter: AlertStreamFilter
  /** A resume point beyond this hub's position (seen on another API process): live events up to it are not sent again. */
  after: FiringPlace | null
}

/**
 * GET /stream/alerts for one API process: one poller however many clients. While clients
 * are connected it looks at the firings' position (the highest block number of the
 * alert_firings table) every POLL_MS (stream-poller.ts), reads the firing versions written since its last
 * look, serializes each once, and writes it to every client whose filter it passes. On the
 * embedded store, while no write has ended in this process since its last look, it does
 * not look (nothing can have been written). `position` is where every live client has been
 * sent up to; a resuming client reads from its Last-Event-ID up to the position at which it
 * joined, then goes live. Slow clients are closed as on GET /stream/swaps (StreamClients).
 */
export class AlertStreamHub {
  private readonly clients: StreamClients<Client>
  private position: FiringPlace | null = null
  /** Embedded: the writes ended when the last look started. */
  private lookedAtWrites: number | null = null
  private starting: Promise<void> | null = null
  private readonly poller: StreamPoller
  private closed = false

  constructor(private readonly deps: AlertStreamDeps) {
    this.clients = new StreamClients({ heartbeatMs: deps.heartbeatMs, maxPendingBytes: deps.maxPendingBytes, meters: { clients: alertStreamClients, ended: alertStreamsEnded } })
    this.poller = new StreamPoller({
      read: () => this.readOn(),
      wanted: () => this.clients.size > 0 && !this.closed,
      onStop: () => this.stop(),
      logger: deps.logger,
      messages: { failing: 'alert stream: the alert firings cannot be read; retrying', recovered: 'alert stream: the alert firings are read again' },
    })
  }

  /**
   * Streams to `res` from now, or after `resume`. A resume point that cannot be served
   * (restartReason) gets a `reset` event, then the stream from now. Fails (before anything
   * is sent) only when the store cannot be read.
   */
  async attach(res: ServerResponse, filter: AlertStreamFilter, resume: FiringPlace | null): Promise<void> {
    if (this.position === null) {
      this.starting ??= this.start().finally(() => (this.starting = null))
      await this.starting
    }
    const restart = resume === null ? null : await this.restartReason(resume, this.position!)
    if (this.position === null) return this.attach(res, filter, resume)
    // The client went away while the store was read.
    if (res.closed) return
    const joinedAt = this.position
    const client: Client = {
      writer: this.clients.writer(res, () => this.clients.delete(client)),
      filter,
      waiting: null,
      waitingBytes: 0,
      after: restart === null && resume !== null && isAfter(resume, joinedAt) ? resume : null,
    }
    client.writer.open(RETRY_MS)
    this.clients.add(client)
    if (restart !== null) client.writer.write(resetFrame(restart, joinedAt))
    else if (resume !== null && isAfter(joinedAt, resume)) {
      client.waiting = []
      try {
        await this.catchUp(client, resume, joinedAt)
      } catch (err) {
        this.deps.logger.warn('alert stream: a client could not be caught up', { error: err instanceof Error ? err.message : String(err) })
        client.writer.close('unavailable', 'the store could not be read: reconnect to resume')
        return
      }
      for (const frame of client.waiting) if (!client.writer.write(frame)) break
      client.waiting = null
    }
  }

  /** Ends every stream (with a `closed` event) and stops polling: the server is shutting down. */
  close(): void {
    this.closed = true
    this.clients.closeAll()
    this.stop()
  }

  /** The number of connected clients. */
  get size(): number {
    return this.clients.size
  }

  /**
   * Why a client cannot resume after `resume`, or null: `ahead`, beyond the firings'
   * position (read again: another API process may have looked later than this one);
   * `expired`, the first version written after it is older than REPLAY_MS.
   */
  private async restartReason(resume: FiringPlace, position: FiringPlace): Promise<AlertRestartReason | null> {
    const claimed = positionBefore(resume)
    if (claimed > positionBefore(position) && claimed > (await this.deps.firings.position())) return 'ahead'
    if (!isAfter(position, resume)) return null
    const first = await this.deps.firings.firstWrittenAfter(resume)
    return first !== null && first < Date.now() - REPLAY_MS ? 'expired' : null
  }

  private async start(): Promise<void> {
    if (this.closed) throw new Error('the server is shutting down')
    const writes = this.deps.writesEnded()
    this.position = restartPoint(await this.deps.firings.position())
    this.lookedAtWrites = writes
    this.poller.start()
    this.clients.startHeartbeats()
  }

  private stop(): void {
    this.poller.stop()
    this.clients.stopHeartbeats()
    this.position = null
  }

  /** Sends every live client the firing versions written up to the firings' position now. */
  private async readOn(): Promise<void> {
    const writes = this.deps.writesEnded()
    // Embedded, this process is the store's only writer: no write ended since the last look started, nothing was written.
    if (writes !== null && writes === this.lookedAtWrites) return
    const head = await this.deps.firings.position()
    if (this.position === null) return
    if (head < positionBefore(this.position)) {
      this.position = restartPoint(head)
      const frame = resetFrame('store_restarted', this.position)
      for (const client of this.clients) {
        client.after = null
        this.clients.send(client, frame)
      }
    } else if (head > positionBefore(this.position)) await this.sendUpTo(restartPoint(head))
    this.lookedAtWrites = writes
  }

  /** Sends the live clients the versions after the hub's position up to `upTo`, CHUNK_ROWS at a time, moving the position with each run. */
  private async sendUpTo(upTo: FiringPlace): Promise<void> {
    for (;;) {
      if (this.position === null) return
      const rows = await this.deps.firings.writtenBetween(this.position, upTo, CHUNK_ROWS)
      await this.clients.closeSlow()
      const reached = rows.length < CHUNK_ROWS ? upTo : rows.at(-1)!.place
      const events = rows.map((r) => alertEvent(r.place, r.firing))
      for (const client of this.clients) {
        for (const event of events) {
          if (client.after !== null && !isAfter(event.place, client.after)) continue
          if (matches(client.filter, event.firing) && !this.clients.send(client, event.frame)) break
        }
        if (client.after !== null && !isAfter(client.after, reached)) client.after = null
      }
      this.position = reached
      if (rows.length < CHUNK_ROWS) return
    }
  }

  /** A resuming client's versions after `after` up to where it joined; backpressure rather than a close while it reads them. */
  private async catchUp(client: Client, after: FiringPlace, upTo: FiringPlace): Promise<void> {
    let from = after
    for (;;) {
      const rows = await this.deps.firings.writtenBetween(from, upTo, CHUNK_ROWS)
      for (const { place, firing } of rows) {
        if (!client.writer.isOpen) return
        if (matches(client.filter, firing)) await client.writer.writePaced(alertEvent(place, firing).frame, BACKLOG_STALL_MS)
      }
      if (rows.length < CHUNK_ROWS) return
      from = rows.at(-1)!.place
    }
  }
}

function resetFrame(reason: AlertRestartReason, restartAt: FiringPlace): string {
  return sseFrame('reset', JSON.stringify({ reason, message: RESTART_MESSAGES[reason] }), formatAlertEventId(restartAt))
}
