import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { stringify } from 'csv-stringify'
import type { Response } from 'express'
import type { CsvColumns } from './csv-columns.js'
import { sendPage } from './envelope.js'
import type { ListFormat } from './contract/parameters.js'
import type { Pagination } from './pagination.js'

export interface ListPage<Row> {
  rows: readonly Row[]
  pagination: Pagination
  /** Swaps only: the keyset cursor of the next page, null on the last. */
  nextCursor?: string | null
  /** JSON only: a hint beside the page (e.g. time-range.ts's secondsHint). */
  message?: string | undefined
}

function isPrematureClose(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ERR_STREAM_PREMATURE_CLOSE'
}

/**
 * A page of a list in the format asked for. JSON: the envelope with `pagination`.
 * CSV (`text/csv; charset=utf-8`): a header row of `columns` (a nested field as
 * `token_sold.symbol`), one line per row written as it is stringified (RFC 4180 quoting,
 * `\n` line ends), a null as an empty field, numbers as JSON writes them, amounts as
 * their exact digit strings; the pagination in headers: X-Total-Count, X-Limit,
 * X-Offset, and X-Next-Cursor when there is a next page by cursor.
 */
export async function sendListPage<Row extends object>(
  res: Response,
  format: ListFormat,
  columns: CsvColumns,
  page: ListPage<Row>,
): Promise<void> {
  if (format === 'json') {
    sendPage(res, [...page.rows], page.pagination, page.nextCursor, page.message)
    return
  }
  res.setHeader('Content-Type', 'text/csv; charset=utf-8')
  res.setHeader('X-Total-Count', String(page.pagination.total))
  res.setHeader('X-Limit', String(page.pagination.limit))
  res.setHeader('X-Offset', String(page.pagination.offset))
  if (typeof page.nextCursor === 'string') res.setHeader('X-Next-Cursor', page.nextCursor)
  try {
    await pipeline(Readable.from(page.rows), stringify({ header: true, columns: [...columns] }), res)
  } catch (err) {
    // The client went away mid-body: nothing to answer, nothing wrong here.
    if (!isPrematureClose(err)) throw err
  }
}
