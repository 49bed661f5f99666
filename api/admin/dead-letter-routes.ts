import express, { Router, type Request } from 'express'
import { z } from 'zod'
import { redriveJobStatus, type DeadLetterRedriveQueue } from '../../shared/dead-letters/dead-letter-redrive-queue.js'
import type { DeadLetterFilter, DeadLetterReader } from '../../shared/dead-letters/dead-letters.js'
import type { DeadLetterRedriveJobData } from '../../shared/platform/queues.js'
import { sendPage, sendResult } from '../envelope.js'
import { badRequest, notFound } from '../http-error.js'
import { parsePage } from '../pagination.js'
import { singleQueryValue } from '../query-params.js'

/** At most this many reasons in GET /admin/dead-letters/counts (`reasons`, default 100). */
const MAX_REASONS = 500
const MAX_REDRIVE_IDS = 10_000

/**
 * A re-drive names what it takes: `all`, or `ids`, and/or filters (`type`, `reason`,
 * `source`). Nothing named is a 400, so an empty body never re-drives everything.
 */
const redriveBody = z
  .object({
    all: z.literal(true).optional(),
    ids: z.array(z.string().min(1).max(64)).min(1).max(MAX_REDRIVE_IDS).optional(),
    type: z.string().min(1).optional(),
    reason: z.string().min(1).optional(),
    source: z.string().min(1).optional(),
  })
  .strict()
  .refine((b) => b.all === true || b.ids !== undefined || b.type !== undefined || b.reason !== undefined || b.source !== undefined, {
    message: 'name what to re-drive: "all": true, "ids", or a "type", "reason" or "source"',
  })

export interface DeadLetterRoutesDeps {
  reader: DeadLetterReader
  redrives: DeadLetterRedriveQueue
}

/**
 * The dead-letter endpoints (under /admin, behind the admin token):
 * GET  /admin/dead-letters                  a page, newest first (filters: type, reason, source, pending)
 * GET  /admin/dead-letters/counts           counts by record type and by reason
 * POST /admin/dead-letters/redrive          queues a re-drive (202), run by the ingest role
 * GET  /admin/dead-letters/redrives/:id     that re-drive's state and outcome
 */
export function deadLetterRoutes(deps: DeadLetterRoutesDeps): Router {
  const router = Router()
  router.get('/dead-letters', async (req, res) => {
    const page = parsePage(req)
    const filter = listFilter(req)
    const { letters, total } = await deps.reader.page(filter, page.limit, page.offset)
    sendPage(res, letters, { ...page, total })
  })

  router.get('/dead-letters/counts', async (req, res) => {
    const raw = singleQueryValue(req, 'reasons')
    const reasons = raw === undefined ? 100 : /^\d+$/.test(raw) ? Number(raw) : NaN
    if (!(reasons >= 1 && reasons <= MAX_REASONS)) throw badRequest(`reasons must be an integer from 1 to ${MAX_REASONS} (got "${raw}")`)
    sendResult(res, await deps.reader.counts(reasons))
  })

  router.post('/dead-letters/redrive', express.json({ limit: '1mb' }), async (req, res) => {
    const parsed = redriveBody.safeParse(req.body ?? {})
    if (!parsed.success) throw badRequest(`Invalid re-drive request: ${parsed.error.issues.map(describeIssue).join('; ')}`)
    const { all: _all, ...selection } = parsed.data
    const data: DeadLetterRedriveJobData = selection
    const job = await deps.redrives.add('redrive', data)
    const status = await redriveJobStatus(deps.redrives, job.id!)
    res.status(202)
    sendResult(res, status ?? { id: job.id, state: 'unknown', selection: data, result: null, failed_reason: null })
  })

  router.get('/dead-letters/redrives/:id', async (req, res) => {
    const status = await redriveJobStatus(deps.redrives, req.params.id!)
    if (!status) throw notFound(`No re-drive with id ${req.params.id} (kept for a week, the last 1,000)`)
    sendResult(res, status)
  })
  return router
}

function listFilter(req: Request): DeadLetterFilter {
  const pending = singleQueryValue(req, 'pending')
  if (pending !== undefined && pending !== 'true' && pending !== 'false') {
    throw badRequest(`pending must be true or false (got "${pending}")`)
  }
  return {
    type: nonEmpty(req, 'type'),
    reason: nonEmpty(req, 'reason'),
    source: nonEmpty(req, 'source'),
    pendingOnly: pending === 'true',
  }
}

function nonEmpty(req: Request, name: string): string | undefined {
  const value = singleQueryValue(req, name)
  if (value === '') throw badRequest(`${name} must not be empty`)
  return value
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message
}
