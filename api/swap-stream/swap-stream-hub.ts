import type { ServerResponse } from 'node:http'
import { CHANGES_READABLE_MS, type ChangeRange } from '../../shared/changes/change-feed.js'
import { dateTime64Param } from '../../shared/platform/datetime-param.js'
import type { Logger } from '../../shared/platform/logger.js'
import { swapStreamClients, swapStreamsEnded } from '../../shared/platform/metrics.js'
import { embeddedWritesEnded, type ClickHouseClient } from '../../shared/storage/clickhouse.js'
import { queryRows } from '../../shared/storage/query-rows.js'
import type { Tables } from '../../shared/storage/tables.js'
import type { FeedReading, FeedWatch } from '../feed-watch.js'
import type { ServedWallets } from '../served-wallets.js'
import type { SwapsRepository } from '../swaps-repository.js'
import type { TokenDirectory } from '../token-directory.js'
import { formatEventId, isAfter, positionBefore, restartPoint, type EventId } from './event-id.js'
import { sseFrame } from '../sse/sse-writer.js'
import { StreamClients, type StreamClient } from '../sse/stream-clients.js'
import { StreamPoller } from '../sse/stream-poller.js'
import { matches, type FilterContext, type StreamFilter } from './stream-filter.js'
import { eventsOf, readSwapChanges, type StreamEvent, type SwapChange } from './swap-events.js'

/** Change rows read at a time (whole blocks: one block larger than this is read whole). */
const CHUNK_ROWS = 20_000
/** How often a live read also reads the feed's position, to see a restarted counter. */
const FEED_CHECK_MS = 5_000
/** The top of a range read up to whatever is committed. */
const OPEN_END = Number.MAX_SAFE_INTEGER
/** What a client waits before reconnecting (the SSE `retry` field). */
const RETRY_MS = 1_000
/** How long a client sent its backlog (resuming) may take nothing before it is closed. */
const BACKLOG_STALL_MS = 10_000

export interface SwapStreamDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  feed: FeedWatch
  swaps: SwapsRepository
  directory: TokenDirectory
  served: ServedWallets
  /** The tracked set (tracked=true). */
  tracked: () => Promise<ReadonlySet<string>>
  heartbeatMs: number
  maxPendingBytes: number
  logger: Logger
}

/** Why a client starts from now rather than after its Last-Event-ID. */
export type RestartReason = 'expired' | 'ahead' | 'feed_restarted'

const RESTART_MESSAGES: Record<RestartReason, string> = {
  expired: 'this id is older than the change feed keeps: the stream starts again from now',
  ahead: 'this id is beyond the feed: the stream starts again from now',
  feed_restarted: "the store's change feed started again: the stream starts again from now",
}

interface Client extends StreamClient {
  filter: StreamFilter
  /** A resume point beyond this hub's position (seen on another API process): live events up to it are not sent again. */
  after: EventId | null
}

/**
 * GET /stream/swaps for one API process: one poller however many clients. While clients are
 * connected it reads the swap changes after its position every POLL_MS (stream-poller.ts, readOn), turns them
 * into events (swap-events.ts), serializes each once, and writes each client the run's
 * frames its filter passes in one write. `position` is what every live client has been sent up to; a resuming client reads
 * from its Last-Event-ID up to the position at which it joined, then goes live.
 *
 * A client is closed as too slow when more than maxPendingBytes still wait for it
 * SLOW_CLIENT_WAIT_MS after the next run of events is ready: not as a run is written, since
 * the run of one large insert is written at once and a client that reads as it comes takes
 * it in time. So a client costs at most the bound plus one run.
 */
export class SwapStreamHub {
  private readonly clients: StreamClients<Client>
  private position: number | null = null
  private reading: FeedReading | null = null
  private starting: Promise<void> | null = null
  private readonly poller: StreamPoller
  private nextFeedCheck = 0
  /** Embedded: the writes ended when the last live read started (embeddedWritesEnded). */
  private writesAtLastRead: number | null = null
  /** The clients by the wallet they follow, and those following none: an event is judged only for its wallet's and the unfiltered. */
  private readonly byWallet = new Map<string, Set<Client>>()
  private readonly unfiltered = new Set<Client>()
  private closed = false

  constructor(private readonly deps: SwapStreamDeps) {
    this.clients = new StreamClients({ heartbeatMs: deps.heartbeatMs, maxPendingBytes: deps.maxPendingBytes, meters: { clients: swapStreamClients, ended: swapStreamsEnded } })
    this.poller = new StreamPoller({
      read: () => this.readOn(),
      wanted: () => this.clients.size > 0 && !this.closed,
      onStop: () => this.stop(),
      logger: deps.logger,
      messages: { failing: 'swap stream: the change feed cannot be read; retrying', recovered: 'swap stream: the change feed is read again' },
    })
  }

  /**
   * Streams to `res` from now, or after `resume`. A resume point the feed can no longer
   * serve (older than it keeps, or beyond it) gets a `reset` event, then the stream from now.
   * Fails (before anything is sent) only when the store cannot be read.
   */
  async attach(res: ServerResponse, filter: StreamFilter, resume: EventId | null): Promise<void> {
    if (this.position === null) {
      this.starting ??= this.start().finally(() => (this.starting = null))
      await this.starting
    }
    let restart: RestartReason | null = null
    if (resume !== null) {
      const claimed = positionBefore(resume)
      // Another API process may have read the feed further than this one's last poll.
      if (claimed > this.position! && claimed > (await this.deps.feed.read()).position) restart = 'ahead'
      else if (claimed < this.position! && !(await this.keptSince(claimed))) restart = 'expired'
    }
    if (this.position === null) return this.attach(res, filter, resume)
    // The client went away while the store was read.
    if (res.closed) return
    const joinedAt = this.position
    const client: Client = {
      writer: this.clients.writer(res, () => this.leave(client)),
      filter,
      waiting: null,
      waitingBytes: 0,
      after: restart === null && resume !== null && positionBefore(resume) > joinedAt ? resume : null,
    }
    client.writer.open(RETRY_MS)
    this.clients.add(client)
    this.followers(client).add(client)
    if (restart !== null) client.writer.write(resetFrame(restart, joinedAt))
    else if (resume !== null && client.after === null) {
      client.waiting = []
      try {
        await this.catchUp(client, { from: resume.block - 1, to: joinedAt }, resume)
      } catch (err) {
        this.deps.logger.warn('swap stream: a client could not be caught up', { error: err instanceof Error ? err.message : String(err) })
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

  private async start(): Promise<void> {
    if (this.closed) throw new Error('the server is shutting down')
    const reading = await this.deps.feed.read()
    this.reading = reading
    this.position = reading.position
    this.nextFeedCheck = Date.now() + FEED_CHECK_MS
    this.writesAtLastRead = null
    this.poller.start()
    this.clients.startHeartbeats()
  }

  private stop(): void {
    this.poller.stop()
    this.clients.stopHeartbeats()
    this.position = this.reading = null
  }

  private leave(client: Client): void {
    this.clients.delete(client)
    const followers = this.followers(client)
    followers.delete(client)
    if (followers.size === 0 && client.filter.wallet !== undefined) this.byWallet.delete(client.filter.wallet)
  }

  private followers(client: Client): Set<Client> {
    const wallet = client.filter.wallet
    if (wallet === undefined) return this.unfiltered
    let set = this.byWallet.get(wallet)
    if (set === undefined) this.byWallet.set(wallet, (set = new Set()))
    return set
  }

  /**
   * Sends every live client the swap changes committed since the last read. Number order is
   * commit order on one node (docs/decisions/0013), so the changes after `position` are read
   * without taking the feed's position first: one query fewer per read, on an embedded engine
   * that runs one query at a time. Embedded, a read is skipped while no write has ended since
   * the last one started. Every FEED_CHECK_MS the feed itself is read, for a restarted counter.
   */
  private async readOn(): Promise<void> {
    if (Date.now() >= this.nextFeedCheck) {
      this.nextFeedCheck = Date.now() + FEED_CHECK_MS
      const last = this.reading!
      const reading = await this.deps.feed.read()
      this.reading = reading
      if (reading.epoch !== last.epoch || reading.position < this.position!) {
        const frame = resetFrame('feed_restarted', reading.position)
        for (const client of this.clients) {
          client.after = null
          this.clients.send(client, frame)
        }
        this.position = reading.position
        return
      }
    }
    const writes = embeddedWritesEnded(this.deps.clickhouse)
    if (writes !== null && writes === this.writesAtLastRead) return
    const context = await this.context()
    await this.eachBatch({ from: this.position!, to: null }, async (events, upTo) => {
      await this.clients.closeSlow()
      this.fanOut(events, context)
      for (const client of this.clients) if (client.after !== null && client.after.block <= upTo) client.after = null
      this.position = upTo
    })
    // Only once read: a failed read is tried again at the next poll, written to since or not.
    this.writesAtLastRead = writes
  }

  /** Each client's frames of a run of events, written at once: one write per client and run. */
  private fanOut(events: readonly StreamEvent[], context: FilterContext): void {
    const frames = new Map<Client, string[]>()
    for (const event of events) {
      for (const clients of [this.unfiltered, this.byWallet.get(event.subject.wallet)]) {
        if (clients === undefined) continue
        for (const client of clients) {
          if (client.after !== null && !isAfter(event.id, client.after)) continue
          if (!matches(client.filter, event.subject, context)) continue
          const own = frames.get(client)
          if (own === undefined) frames.set(client, [event.frame])
          else own.push(event.frame)
        }
      }
    }
    for (const [client, own] of frames) this.clients.send(client, own.join(''))
  }

  /** A resuming client's events after `after`, up to where it joined; backpressure rather than a close while it reads them. */
  private async catchUp(client: Client, range: ChangeRange, after: EventId): Promise<void> {
    const context = await this.context()
    await this.eachBatch(range, async (events) => {
      for (const event of events) {
        if (!client.writer.isOpen) return
        if (!isAfter(event.id, after) || !matches(client.filter, event.subject, context)) continue
        await client.writer.writePaced(event.frame, BACKLOG_STALL_MS)
      }
    })
  }

  private async context(): Promise<FilterContext> {
    await this.deps.directory.fresh()
    const served = await this.deps.served.current()
    const tracked = [...this.clients].some((c) => c.filter.tracked) ? await this.deps.tracked() : null
    return { served, tracked, addressesOf: (id, addressShaped) => this.deps.directory.addressesForTokenId(id, addressShaped) }
  }

  /**
   * The events of `range`, a run of whole blocks at a time, each run with the position it
   * reaches. A range open at the top (`to` null) ends with the last change committed.
   */
  private async eachBatch(range: { from: number; to: number | null }, send: (events: StreamEvent[], upTo: number) => void | Promise<void>): Promise<void> {
    const { clickhouse, tables, swaps } = this.deps
    const to = range.to ?? OPEN_END
    let from = range.from
    while (from < to) {
      let changes: SwapChange[] = await readSwapChanges(clickhouse, tables, { from, to }, CHUNK_ROWS)
      if (range.to === null && changes.length === 0) return
      const full = changes.length === CHUNK_ROWS
      let upTo = range.to ?? changes.at(-1)!.block
      if (full) {
        // The last block may go on past the limit: it is read with the next run, or alone if it fills this one.
        const lastBlock = changes.at(-1)!.block
        const alone = changes[0]!.block === lastBlock
        changes = alone ? await readSwapChanges(clickhouse, tables, { from: lastBlock - 1, to: lastBlock }, 2 ** 32 - 1) : changes.filter((c) => c.block < lastBlock)
        upTo = alone ? lastBlock : lastBlock - 1
      }
      await send(await eventsOf(changes, (keys) => swaps.atKeys(keys)), upTo)
      from = upTo
      if (range.to === null && !full) return
    }
  }

  /**
   * Whether every change after `position` is still kept: a change at or below it is younger
   * than CHANGES_READABLE_MS, so none after it has reached the feed's retention. Position 0
   * (an empty feed's restart point) stands for the feed's first block.
   */
  private async keptSince(position: number): Promise<boolean> {
    const rows = await queryRows<{ kept: number }>(
      this.deps.clickhouse,
      `SELECT 1 AS kept FROM ${this.deps.tables.changes}
       WHERE changed_at >= {since:DateTime64(3, 'UTC')} AND _block_number <= greatest({position:UInt64}, 1) LIMIT 1`,
      { position, since: dateTime64Param(Date.now() - CHANGES_READABLE_MS) },
    )
    return rows.length > 0
  }
}

function resetFrame(reason: RestartReason, position: number): string {
  return sseFrame('reset', JSON.stringify({ reason, message: RESTART_MESSAGES[reason] }), formatEventId(restartPoint(position)))
}
