import { Router, type Request } from 'express'
import { firingJson } from '../shared/alerts/alert-firing.js'
import type { AlertFiringsStore, FiringFilter } from '../shared/alerts/alert-firings-store.js'
import { sendPage } from './envelope.js'
import { badRequest } from './http-error.js'
import { parsePage } from './pagination.js'
import { singleQueryValue } from './query-params.js'

const ACCEPTED = ['limit', 'offset', 'rule_id', 'token', 'since', 'until'] as const

/**
 * GET /alerts: the alert firings, newest first, each with its evidence swaps; paged
 * (limit, offset, exact total) and filtered by rule_id, token, and fired time (since
 * inclusive, until exclusive, ms since the epoch).
 */
export function alertsRouter(firings: AlertFiringsStore): Router {
  const router = Router()
  router.get('/alerts', async (req, res) => {
    const unknown = Object.keys(req.query).find((name) => !(ACCEPTED as readonly string[]).includes(name))
    if (unknown !== undefined) throw badRequest(`Unknown parameter "${unknown}"; GET /alerts accepts ${ACCEPTED.join(', ')}`)
    const page = parsePage(req)
    const filter: FiringFilter = {
      ruleId: nonEmpty(req, 'rule_id'),
      token: nonEmpty(req, 'token')?.toLowerCase(),
      since: msParam(req, 'since'),
      until: msParam(req, 'until'),
    }
    const { firings: found, total } = await firings.page(filter, page)
    sendPage(res, found.map(firingJson), { ...page, total })
  })
  return router
}

function nonEmpty(req: Request, name: string): string | undefined {
  const value = singleQueryValue(req, name)
  if (value === '') throw badRequest(`${name} must not be empty`)
  return value
}

function msParam(req: Request, name: string): number | undefined {
  const value = singleQueryValue(req, name)
  if (value === undefined) return undefined
  if (!/^\d{1,15}$/.test(value)) throw badRequest(`${name} must be a time in ms since the epoch (got "${value}")`)
  return Number(value)
}
