import { Router } from 'express'
import type { FiringPlace } from '../../shared/alerts/alert-firings-store.js'
import { parseRequest } from '../contract/request-parsing.js'
import { badRequest, HttpError, notFound, SERVICE_UNAVAILABLE_MESSAGE } from '../http-error.js'
import { EVENT_STREAM_HEADERS } from '../sse/sse-writer.js'
import { parseAlertEventId } from './alert-event-id.js'
import { ALERT_EVENT_ID_MESSAGE, ALERTS_NOT_ON_A_CLUSTER_MESSAGE, streamAlerts } from './alert-stream-endpoint.js'
import type { AlertStreamHub } from './alert-stream-hub.js'

/** GET /stream/alerts: checks the request, then hands the response to the process's hub (null: on a cluster, not offered). */
export function alertStreamRouter(hub: AlertStreamHub | null): Router {
  const router = Router()
  router.get(streamAlerts.path, async (req, res) => {
    const { query } = parseRequest(streamAlerts, req)
    const header = req.get('last-event-id')
    let resume: FiringPlace | null = query.last_event_id ?? null
    if (header !== undefined && header !== '') {
      resume = parseAlertEventId(header)
      if (resume === null) throw badRequest(`Last-Event-ID ${ALERT_EVENT_ID_MESSAGE} (got "${header}")`)
    }
    if (hub === null) throw notFound(ALERTS_NOT_ON_A_CLUSTER_MESSAGE)
    // HEAD: what a GET would open with, and no stream.
    if (req.method === 'HEAD') {
      res.writeHead(200, EVENT_STREAM_HEADERS).end()
      return
    }
    try {
      await hub.attach(res, { ruleId: query.rule_id, token: query.token }, resume)
    } catch (err) {
      if (res.headersSent) return
      throw new HttpError(503, SERVICE_UNAVAILABLE_MESSAGE, { cause: err })
    }
  })
  return router
}
