import type { Router } from 'express'
import { liveStreamRouter } from '../sse/stream-route.js'
import { parseAlertEventId } from './alert-event-id.js'
import { ALERT_EVENT_ID_MESSAGE, ALERTS_NOT_ON_A_CLUSTER_MESSAGE, streamAlerts } from './alert-stream-endpoint.js'
import type { AlertStreamHub } from './alert-stream-hub.js'

/** GET /stream/alerts (null: on a cluster, not offered). */
export function alertStreamRouter(hub: AlertStreamHub | null): Router {
  return liveStreamRouter({
    endpoint: streamAlerts,
    hub,
    filterOf: (query) => ({ ruleId: query.rule_id, token: query.token }),
    resumeOf: (query) => query.last_event_id ?? null,
    parseEventId: parseAlertEventId,
    eventIdMessage: ALERT_EVENT_ID_MESSAGE,
    notOfferedMessage: ALERTS_NOT_ON_A_CLUSTER_MESSAGE,
  })
}
