import { insertFormatted, type ClickHouseClient } from '../../shared/storage/clickhouse.js'
import type { Logger } from '../../shared/platform/logger.js'
import { insertDuration, rowsInserted } from '../../shared/platform/metrics.js'
import { encodeRows, type EncodedRows } from './compact-rows.js'
import { isDataError } from './insert-errors.js'

/**
 * Rows for one table: as objects (encoded on arrival), or already encoded (see
 * swap-lines.ts). A list of tables takes the same rows into each, one insert after the
 * other in that order (the swaps' entry tables: shared/storage/schema/swaps-schema.ts).
 */
export type TableRows =
  | { table: string | readonly string[]; rows: readonly object[] }
  | { table: string | readonly string[]; encoded: EncodedRows }

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
  rows: EncodedRows
  resolve: () => void
  reject: (err: unknown) => void
}

interface TableBuffer {
  targets: readonly string[]
  columns: readonly string[]
  entries: Entry[]
  rowCount: number
  timer: NodeJS.Timeout | undefined
}

/**
 * Buffers rows per table across jobs and inserts each table's buffer in one
 * JSONCompactEachRow insert (see compact-rows.ts). Rows are held as their encoded text
 * from the moment they arrive: one string per write rather than thousands of objects for
 * the garbage collector to trace and promote while they wait. `write` resolves only once
 * the insert holding those rows has succeeded, so a caller that acknowledges after
 * `write` acknowledges durable rows only.
 * When a combined insert fails on a data error, each writer's rows are retried alone,
 * so one bad batch cannot fail the batches written beside it.
 */
export class BatchWriter {
  /** By table and column list: rows are inserted with the buffer's columns. */
  private readonly buffers = new Map<string, TableBuffer>()
  private readonly inFlight = new Set<Promise<void>>()
  /** The last insert started per table: the next one for that table starts after it. */
  private readonly tableTails = new Map<string, Promise<void>>()
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
    for (const batch of batches) {
      const rows = 'encoded' in batch ? batch.encoded : batch.rows.length > 0 ? encodeRows(batch.rows) : undefined
      if (rows === undefined || rows.count === 0) continue
      pending.push(this.enqueue(batch.table, rows))
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
    const started = [...this.buffers.keys()].map((key) => this.flushBuffer(key))
    await Promise.allSettled(started)
  }

  /** From now on every write is inserted at once; waits for all inserts in flight. */
  async drain(): Promise<void> {
    this.draining = true
    await this.flushAll()
    await Promise.allSettled([...this.inFlight])
  }

  private enqueue(table: string | readonly string[], rows: EncodedRows): Promise<void> {
    const targets = typeof table === 'string' ? [table] : table
    const key = `${targets.join(' then ')} (${rows.columns.join(', ')})`
    let buffer = this.buffers.get(key)
    if (!buffer) {
      buffer = { targets, columns: rows.columns, entries: [], rowCount: 0, timer: undefined }
      this.buffers.set(key, buffer)
    }
    const entries = buffer.entries
    const done = new Promise<void>((resolve, reject) => entries.push({ rows, resolve, reject }))
    buffer.rowCount += rows.count
    if (this.draining || buffer.rowCount >= this.options.flushRows) {
      void this.flushBuffer(key)
    } else if (!buffer.timer) {
      buffer.timer = setTimeout(() => void this.flushBuffer(key), this.options.flushMs)
    }
    return done
  }

  private flushBuffer(key: string): Promise<void> {
    const buffer = this.buffers.get(key)
    if (!buffer || buffer.entries.length === 0) return Promise.resolve()
    if (buffer.timer) clearTimeout(buffer.timer)
    const { targets, columns, entries } = buffer
    this.buffers.set(key, { targets, columns, entries: [], rowCount: 0, timer: undefined })
    const table = targets.join(' then ')
    // One insert at a time per table: the swaps views look up earlier versions of each
    // hash during the insert (shared/storage/schema/swaps-schema.ts), and two inserts of the same
    // hash running side by side would not see each other. Rows keep buffering meanwhile,
    // so the next insert is simply larger.
    const previous = this.tableTails.get(table) ?? Promise.resolve()
    const insert = previous.then(() => this.insertEntries(table, targets, columns, entries))
    const settled = insert.finally(() => {
      this.inFlight.delete(settled)
      if (this.tableTails.get(table) === settled) this.tableTails.delete(table)
    })
    this.inFlight.add(settled)
    this.tableTails.set(table, settled)
    return settled
  }

  /** `table` names the targets in logs. */
  private async insertEntries(table: string, targets: readonly string[], columns: readonly string[], entries: Entry[]): Promise<void> {
    try {
      await this.insert(targets, columns, entries.map((e) => e.rows))
      for (const entry of entries) entry.resolve()
      return
    } catch (err) {
      if (!isDataError(err) || entries.length === 1) {
        this.logger.warn('insert failed', { table, rows: countRows(entries.map((e) => e.rows)), err })
        const failure = isDataError(err) ? new RowsRejectedError(errorMessage(err)) : err
        for (const entry of entries) entry.reject(failure)
        return
      }
      this.logger.warn('insert refused rows: retrying each batch alone', { table, batches: entries.length, err })
    }
    for (const entry of entries) {
      try {
        await this.insert(targets, columns, [entry.rows])
        entry.resolve()
      } catch (err) {
        entry.reject(isDataError(err) ? new RowsRejectedError(errorMessage(err)) : err)
      }
    }
  }

  /** The texts' rows into each target, one after the other: a later insert starts only once the one before succeeded. */
  private async insert(targets: readonly string[], columns: readonly string[], parts: readonly EncodedRows[]): Promise<void> {
    for (const target of targets) await this.insertInto(target, columns, parts)
  }

  /** One insert of the texts' rows, as they are (the client's `insert` would take objects only). */
  private async insertInto(table: string, columns: readonly string[], parts: readonly EncodedRows[]): Promise<void> {
    const started = performance.now()
    await insertFormatted(this.clickhouse, { table, columns, texts: parts.map((p) => p.text) })
    const metricTable = table.slice(table.indexOf('.') + 1)
    rowsInserted.inc({ table: metricTable }, countRows(parts))
    insertDuration.observe({ table: metricTable }, (performance.now() - started) / 1000)
    this.logger.debug('inserted', { table, rows: countRows(parts), ms: Math.round(performance.now() - started), inFlight: this.inFlight.size })
  }
}

function countRows(parts: readonly EncodedRows[]): number {
  let n = 0
  for (const part of parts) n += part.count
  return n
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
