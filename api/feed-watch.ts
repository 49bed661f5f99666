import { feedPosition, changeRangeParams, CHANGES_READABLE_MS, IN_CHANGE_RANGE, rangeUpTo, type ChangeRange } from '../shared/changes/change-feed.js'
import { embeddedWritesEnded, type ClickHouseClient } from '../shared/storage/clickhouse.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { CHANGE_KINDS, type ChangeKind } from '../shared/storage/schema/changes-schema.js'
import type { Tables } from '../shared/storage/tables.js'

/** What one read of the change feed found. */
export interface FeedReading {
  /** The feed's position (changesSince's `to`): every change at or below it, and its row, is visible. */
  position: number
  /** Grows each time the feed's counter is found to have started again (or this process last read it longer ago than changes are kept). */
  epoch: number
  /** The number of this read: a later read has a greater one. */
  read: number
  /** When this read started (ms). */
  startedAt: number
  /** Embedded: the writes this process had ended when the read started (embeddedWritesEnded); null on a server. */
  writes: number | null
  /** Per kind, the number of the last read that found changes of it: equal numbers, nothing of that kind changed in between. */
  versions: Readonly<Record<ChangeKind, number>>
}

/** The version of several kinds at once (e.g. everything a candle is made of). */
export function versionOf(reading: FeedReading, kinds: readonly ChangeKind[]): number {
  return Math.max(...kinds.map((k) => reading.versions[k]))
}

/** The range from `from` to the reading (changesSince: a `from` above the position restarts at 0). */
export function rangeTo(reading: FeedReading, from: number): ChangeRange {
  return rangeUpTo(from, reading.position)
}

/**
 * The change feed as this API process last read it, shared by every result it keeps
 * (versioned-results.ts, candle-refresh-gate.ts, swap-hour-counts.ts). Ingestion stores rows
 * before it acknowledges them, so a read that starts after an acknowledgement sees their
 * changes. Requests share reads: a read starts a turn of the event loop after it is asked
 * for, and one asked for while a read runs starts when that one ends, so any number of
 * requests arriving together cost one.
 *
 * Per kind, not one position for all: in embedded chDB reading the position (feedPosition,
 * system.parts) took ~7.0 ms a call, `max(_block_number) > p` on the changes table ~6.8 ms
 * (a per-query floor of ~3 ms in both); which kinds a range holds took ~9.7 ms more, read
 * only when the feed moved (at most once per ingestion flush under load). That keeps a
 * holdings page across swap inserts and a swaps page across price inserts.
 *
 * Embedded, the store has one process, this one: while no write has ended in it since the
 * last read started, the feed cannot have moved, and the position is not read again.
 */
export class FeedWatch {
  private last: FeedReading | undefined
  private running: Promise<FeedReading> | undefined
  /** The read the next callers share, not started yet. */
  private next: Promise<FeedReading> | undefined

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  /** The feed as a read that started after this call found it. */
  read(): Promise<FeedReading> {
    this.next ??= this.afterRunning().then(() => this.start())
    return this.next
  }

  /** Once no read runs, the end of the event loop's turn: requests arriving in the same turn (its I/O) share the read. */
  private afterRunning(): Promise<void> {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
    return this.running === undefined ? turn() : this.running.then(turn, turn)
  }

  private start(): Promise<FeedReading> {
    this.next = undefined
    const run = this.readFeed()
    this.running = run
    const settled = () => {
      if (this.running === run) this.running = undefined
    }
    run.then(settled, settled)
    return run
  }

  private async readFeed(): Promise<FeedReading> {
    const last = this.last
    const startedAt = Date.now()
    const writes = embeddedWritesEnded(this.clickhouse)
    const read = (last?.read ?? 0) + 1
    // Embedded, this process is the store's only writer: no write ended since the last read started, nothing moved.
    if (last !== undefined && writes !== null && writes === last.writes && startedAt - last.startedAt <= CHANGES_READABLE_MS) {
      this.last = { ...last, read, startedAt }
      return this.last
    }
    const position = await feedPosition(this.clickhouse, this.tables)
    let reading: FeedReading
    const everything = (epoch: number): FeedReading => ({
      position,
      epoch,
      read,
      startedAt,
      writes,
      versions: Object.fromEntries(CHANGE_KINDS.map((k) => [k, read])) as Record<ChangeKind, number>,
    })
    if (last === undefined) reading = everything(0)
    else if (position < last.position || startedAt - last.startedAt > CHANGES_READABLE_MS) reading = everything(last.epoch + 1)
    else if (position === last.position) reading = { ...last, read, startedAt, writes }
    else {
      const [row] = await queryRows<{ kinds: ChangeKind[] }>(
        this.clickhouse,
        `SELECT groupUniqArray(kind) AS kinds FROM ${this.tables.changes} WHERE ${IN_CHANGE_RANGE}`,
        changeRangeParams({ from: last.position, to: position }),
      )
      const versions = { ...last.versions }
      for (const kind of row?.kinds ?? []) versions[kind] = read
      reading = { position, epoch: last.epoch, read, startedAt, writes, versions }
    }
    this.last = reading
    return reading
  }
}
