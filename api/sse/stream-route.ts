import { Router, type Request } from 'express'
import type { ServerResponse } from 'node:http'
import type { Endpoint } from '../contract/endpoint.js'
import { parseRequest, type ParsedRequest } from '../contract/request-parsing.js'
import { badRequest, HttpError, notFound, SERVICE_UNAVAILABLE_MESSAGE } from '../http-error.js'
import { EVENT_STREAM_HEADERS } from './sse-writer.js'

/** A live stream's hub in one API process (swap-stream-hub.ts, alert-stream-hub.ts). */
export interface LiveStreamHub<Filter, Place> {
  attach(res: ServerResponse, filter: Filter, resume: Place | null): Promise<void>
}

export interface LiveStreamRoute<E extends Endpoint, Filter, Place> {
  endpoint: E
  /** Null: on a cluster, where the stream is not offered. */
  hub: LiveStreamHub<Filter, Place> | null
  filterOf(query: ParsedRequest<E>['query']): Filter
  /** The query's resume point (its last_event_id), parsed by the endpoint's schema. */
  resumeOf(query: ParsedRequest<E>['query']): Place | null
  /** A Last-Event-ID header's event id, null when malformed. */
  parseEventId(raw: string): Place | null
  /** How an event id is spelt, for the 400 of a malformed header. */
  eventIdMessage: string
  /** The 404 on a cluster. */
  notOfferedMessage: string
}

/**
 * A live stream's GET: checks the request (the Last-Event-ID header over last_event_id),
 * answers HEAD with the stream's headers only, then hands the response to the process's hub;
 * a store that cannot be read before anything is sent is a 503.
 */
export function liveStreamRouter<E extends Endpoint, Filter, Place>(route: LiveStreamRoute<E, Filter, Place>): Router {
  const router = Router()
  router.get(route.endpoint.path, async (req: Request, res) => {
    const { query } = parseRequest(route.endpoint, req)
    const header = req.get('last-event-id')
    let resume = route.resumeOf(query)
    if (header !== undefined && header !== '') {
      resume = route.parseEventId(header)
      if (resume === null) throw badRequest(`Last-Event-ID ${route.eventIdMessage} (got "${header}")`)
    }
    if (route.hub === null) throw notFound(route.notOfferedMessage)
    if (req.method === 'HEAD') {
      res.writeHead(200, EVENT_STREAM_HEADERS).end()
      return
    }
    try {
      await route.hub.attach(res, route.filterOf(query), resume)
    } catch (err) {
      if (res.headersSent) return
      throw new HttpError(503, SERVICE_UNAVAILABLE_MESSAGE, { cause: err })
    }
  })
  return router
}
