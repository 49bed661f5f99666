import { z } from 'zod'

/** Section 2.1 and 2.2 of the interface: the envelope every JSON response has. */

export const paginationSchema = z
  .strictObject({
    total: z.int().meta({ description: 'The exact number of records the request covers' }),
    limit: z.int(),
    offset: z.int(),
  })
  .meta({ id: 'Pagination' })

export const cursorPaginationSchema = paginationSchema
  .extend({
    next_cursor: z.string().nullable().meta({ description: 'Send back as `cursor` for the next page; null on the last page' }),
  })
  .meta({ id: 'CursorPagination' })

/** Beside a page: said when start_time and end_time look like seconds and the page is empty, or when the wallet asked for is not served. */
export const pageHint = z
  .string()
  .optional()
  .meta({ description: 'A hint, e.g. that times are milliseconds, or that the wallet asked for is not in the tracked set the service serves (SERVED_WALLETS=tracked)' })

export function resultEnvelope(result: z.ZodType) {
  return z.strictObject({ status: z.literal('success'), result })
}

export function pageEnvelope(item: z.ZodType, pagination: z.ZodType = paginationSchema) {
  return z.strictObject({ status: z.literal('success'), result: z.array(item), pagination, message: pageHint })
}

export const errorSchema = z
  .strictObject({ status: z.literal('error'), message: z.string().meta({ description: 'What was wrong, naming the parameter' }) })
  .meta({ id: 'Error', description: 'Every error, on every endpoint and on unknown paths.' })
