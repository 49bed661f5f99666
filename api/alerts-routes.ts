import { Router } from 'express'
import { firingJson } from '../shared/alerts/alert-firing.js'
import type { AlertFiringsStore } from '../shared/alerts/alert-firings-store.js'
import { listAlerts } from './contract/endpoints/alerts.js'
import { parseRequest } from './contract/request-parsing.js'
import { sendPage } from './envelope.js'

/**
 * GET /alerts: the alert firings, newest first, each with its evidence swaps; paged
 * (limit, offset, exact total) and filtered by rule_id, token, and fired time (since
 * inclusive, until exclusive, ms since the epoch).
 */
export function alertsRouter(firings: AlertFiringsStore): Router {
  const router = Router()
  router.get(listAlerts.path, async (req, res) => {
    const { query } = parseRequest(listAlerts, req)
    const page = { limit: query.limit, offset: query.offset }
    const { firings: found, total } = await firings.page({ ruleId: query.rule_id, token: query.token, since: query.since, until: query.until }, page)
    sendPage(res, found.map(firingJson), { ...page, total })
  })
  return router
}
