import { Router } from 'express'
import { parseRequest } from '../contract/request-parsing.js'
import { badRequest, HttpError, notFound, SERVICE_UNAVAILABLE_MESSAGE } from '../http-error.js'
import { parseEventId, type EventId } from './event-id.js'
import { EVENT_STREAM_HEADERS } from '../sse/sse-writer.js'
import { LAST_EVENT_ID_MESSAGE, NOT_ON_A_CLUSTER_MESSAGE, streamSwaps } from './stream-endpoint.js'
import type { SwapStreamHub } from './swap-stream-hub.js'

/** GET /stream/swaps: checks the request, then hands the response to the process's hub (null: on a cluster, not offered). */
export function swapStreamRouter(hub: SwapStreamHub | null): Router {
  const router = Router()
  router.get(streamSwaps.path, async (req, res) => {
    const { query } = parseRequest(streamSwaps, req)
    const header = req.get('last-event-id')
    let resume: EventId | null = query.last_event_id ?? null
    if (header !== undefined && header !== '') {
      resume = parseEventId(header)
      if (resume === null) throw badRequest(`Last-Event-ID ${LAST_EVENT_ID_MESSAGE} (got "${header}")`)
    }
    if (hub === null) throw notFound(NOT_ON_A_CLUSTER_MESSAGE)
    // HEAD: what a GET would open with, and no stream.
    if (req.method === 'HEAD') {
      res.writeHead(200, EVENT_STREAM_HEADERS).end()
      return
    }
    const filter = { wallet: query.address, tokenId: query.token_id, tracked: query.tracked, minValueUsd: query.min_value_usd }
    try {
      await hub.attach(res, filter, resume)
    } catch (err) {
      if (res.headersSent) return
      throw new HttpError(503, SERVICE_UNAVAILABLE_MESSAGE, { cause: err })
    }
  })
  return router
}
