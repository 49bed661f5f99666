import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Logger } from '../shared/logger.js'
import { compactRows } from './compact-rows.js'
import { isDataError } from './insert-errors.js'

export interface TableRows {
  table: string
  rows: readonly object[]
}

export interface BatchWriterOptions {
  /** Flush a table as soon as this many rows are buffered for it. */
  flushRows: number
  /** ...or this long after its first buffered row, whichever comes first. */
  flushMs: number
  /**
   * ...or as soon as this many writes are waiting: when every job slot of the worker is
   * waiting for a flush, no more rows can arrive, so waiting for the timer only idles.
   */
  flushWhenWaiting?: number
}

/** Raised for rows ClickHouse refuses as data: retrying them cannot succeed. */
export class RowsRejectedError extends Error {}

interface Entry {
  rows: readonly object[]
  resolve: () => void
  reject: (err: unknown) => void
}

interface TableBuffer {
  entries: Entry[]
  rowCount: number
  timer: NodeJS.Timeout | undefined
}

/**
 * Buffers rows per table across jobs and inserts each table's buffer in one
 * JSONCompactEachRow insert (see compact-rows.ts). `write` resolves only once the insert holding those rows has
 * succeeded, so a caller that acknowledges after `write` acknowledges durable rows only.
 * When a combined insert fails on a data error, each writer's rows are retried alone,
 * so one bad batch cannot fail the batches written beside it.
 */
export class BatchWriter {
  private readonly buffers = new Map<string, TableBuffer>()
  private readonly inFlight = new Set<Promise<void>>()
  private draining = false
  private waitingWrites = 0

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly options: BatchWriterOptions,
    private readonly logger: Logger,
  ) {}

  /** Buffers rows for one or more tables; resolves when all of them are inserted. */
  async write(batches: readonly TableRows[]): Promise<void> {
    const pending: Promise<void>[] = []
    for (const { table, rows } of batches) {
      if (rows.length === 0) continue
      pending.push(this.enqueue(table, rows))
    }
    if (pending.length === 0) return
    this.waitingWrites++
    try {
      if (this.options.flushWhenWaiting !== undefined && this.waitingWrites >= this.options.flushWhenWaiting) {
        void this.flushAll()
      }
      await Promise.all(pending)
    } finally {
      this.waitingWrites--
    }
  }

  /** Number of rows waiting in buffers (not yet handed to an insert). */
  get bufferedRows(): number {
    let n = 0
    for (const buffer of this.buffers.values()) n += buffer.rowCount
    return n
  }

  /** Starts inserting every buffered row now; resolves when those inserts settled. */
  async flushAll(): Promise<void> {
    const started = [...this.buffers.keys()].map((table) => this.flushTable(table))
    await Promise.allSettled(started)
  }

  /** From now on every write is inserted at once; waits for all inserts in flight. */
  async drain(): Promise<void> {
    this.draining = true
    await this.flushAll()
    await Promise.allSettled([...this.inFlight])
  }

  private enqueue(table: string, rows: readonly object[]): Promise<void> {
    let buffer = this.buffers.get(table)
    if (!buffer) {
      buffer = { entries: [], rowCount: 0, timer: undefined }
      this.buffers.set(table, buffer)
    }
    const done = new Promise<void>((resolve, reject) => buffer.entries.push({ rows, resolve, reject }))
    buffer.rowCount += rows.length
    if (this.draining || buffer.rowCount >= this.options.flushRows) {
      void this.flushTable(table)
    } else if (!buffer.timer) {
      buffer.timer = setTimeout(() => void this.flushTable(table), this.options.flushMs)
    }
    return done
  }

  private flushTable(table: string): Promise<void> {
    const buffer = this.buffers.get(table)
    if (!buffer || buffer.entries.length === 0) return Promise.resolve()
    if (buffer.timer) clearTimeout(buffer.timer)
    const entries = buffer.entries
    this.buffers.set(table, { entries: [], rowCount: 0, timer: undefined })
    const insert = this.insertEntries(table, entries).finally(() => this.inFlight.delete(insert))
    this.inFlight.add(insert)
    return insert
  }

  private async insertEntries(table: string, entries: Entry[]): Promise<void> {
    const rows = entries.length === 1 ? entries[0]!.rows : entries.flatMap((e) => e.rows)
    try {
      await this.insert(table, rows)
      for (const entry of entries) entry.resolve()
      return
    } catch (err) {
      if (!isDataError(err) || entries.length === 1) {
        this.logger.warn('insert failed', { table, rows: rows.length, err })
        const failure = isDataError(err) ? new RowsRejectedError(errorMessage(err)) : err
        for (const entry of entries) entry.reject(failure)
        return
      }
      this.logger.warn('insert refused rows: retrying each batch alone', { table, batches: entries.length, err })
    }
    for (const entry of entries) {
      try {
        await this.insert(table, entry.rows)
        entry.resolve()
      } catch (err) {
        entry.reject(isDataError(err) ? new RowsRejectedError(errorMessage(err)) : err)
      }
    }
  }

  private async insert(table: string, rows: readonly object[]): Promise<void> {
    const started = performance.now()
    const { columns, values } = compactRows(rows)
    await this.clickhouse.insert({ table, columns, values, format: 'JSONCompactEachRow' })
    this.logger.debug('inserted', { table, rows: rows.length, ms: Math.round(performance.now() - started), inFlight: this.inFlight.size })
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
