import { Router } from 'express'
import { DELIVERY_STATES, listDeliveries, redriveDelivery, type AlertDeliveriesQueue, type DeliveryState } from '../../shared/alerts/alert-deliveries.js'
import { sendPage, sendResult } from '../envelope.js'
import { badRequest, notFound } from '../http-error.js'
import { parsePage } from '../pagination.js'
import { singleQueryValue } from '../query-params.js'

/**
 * The webhook deliveries of the alerts (under /admin, behind the admin token):
 * GET  /admin/alerts/deliveries?status=failed     a page of deliveries in that state (default failed), oldest first
 * POST /admin/alerts/deliveries/:id/redrive       sends a failed delivery again, same id (202)
 */
export function alertDeliveryRoutes(queue: AlertDeliveriesQueue): Router {
  const router = Router()
  router.get('/alerts/deliveries', async (req, res) => {
    const status = singleQueryValue(req, 'status') ?? 'failed'
    if (!(DELIVERY_STATES as readonly string[]).includes(status)) {
      throw badRequest(`status must be one of ${DELIVERY_STATES.join(', ')} (got "${status}")`)
    }
    const page = parsePage(req)
    const { deliveries, total } = await listDeliveries(queue, status as DeliveryState, page)
    sendPage(res, deliveries, { ...page, total })
  })

  router.post('/alerts/deliveries/:id/redrive', async (req, res) => {
    const id = req.params.id!
    const outcome = await redriveDelivery(queue, id)
    if (outcome === null) throw notFound(`No delivery with id ${id}`)
    if (outcome.state !== 'waiting') throw badRequest(`Only a failed delivery can be re-driven; ${id} is ${outcome.state}`)
    res.status(202)
    sendResult(res, { id, state: outcome.state })
  })
  return router
}
