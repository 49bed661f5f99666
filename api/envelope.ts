import type { Response } from 'express'
import type { Pagination } from './pagination.js'

/** Section 2.1 of the interface: a single object as `result`. */
export function sendResult(res: Response, result: unknown): void {
  res.json({ status: 'success', result })
}

/** Section 2.1 and 8: a page of records as `result`, with the exact total, and a `message` when there is a hint. */
export function sendPage(res: Response, result: unknown[], pagination: Pagination, nextCursor?: string | null, message?: string): void {
  const { total, limit, offset } = pagination
  res.json({
    status: 'success',
    result,
    pagination: nextCursor === undefined ? { total, limit, offset } : { total, limit, offset, next_cursor: nextCursor },
    ...(message === undefined ? {} : { message }),
  })
}
