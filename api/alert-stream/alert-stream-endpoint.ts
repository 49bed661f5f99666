import { z } from 'zod'
import { defineEndpoint } from '../contract/endpoint.js'
import { addressParam, nonEmptyParam, shown, singleValue, strictQuery } from '../contract/parameters.js'
import { parseAlertEventId } from './alert-event-id.js'

export const ALERT_EVENT_ID_MESSAGE = 'must be the id of an event of this stream: "<block>-<32 hexadecimal digits>", or a restart point "<block>-0"'

export const ALERTS_NOT_ON_A_CLUSTER_MESSAGE =
  'GET /stream/alerts is not offered on a ClickHouse cluster (CLICKHOUSE_CLUSTER): its positions are per shard; read GET /alerts instead'

const lastEventId = singleValue('last_event_id')
  .refine((raw) => parseAlertEventId(raw) !== null, { error: (issue) => `last_event_id ${ALERT_EVENT_ID_MESSAGE} (got "${shown(issue.input)}")` })
  .transform((raw) => parseAlertEventId(raw)!)

export const streamAlerts = defineEndpoint({
  path: '/stream/alerts',
  operationId: 'streamAlerts',
  tag: 'Alerts',
  summary: 'A live Server-Sent Events stream of the alert firings stored from now on (or after Last-Event-ID)',
  description:
    'Events: `alert` (data: the alert as GET /alerts lists it, status `fired`), `alert_retracted` (data: the same alert, status `retracted`, with retracted_at), ' +
    '`reset` (the Last-Event-ID cannot be resumed from: the stream starts from now), `closed` (the last event: data.reason `slow_client`, `shutdown` or `unavailable`). ' +
    'Each alert and alert_retracted has an id `<block>-<firing>`; reconnecting with it (the Last-Event-ID header, or last_event_id) resumes after it. ' +
    'A `: heartbeat` comment comes every SWAP_STREAM_HEARTBEAT_MS (15 s by default). See docs/api.md, Live alerts.',
  query: strictQuery({
    rule_id: nonEmptyParam('rule_id').optional().meta({ description: 'Only the firings of this rule' }),
    token: addressParam('token').optional().meta({ description: 'Only the firings about this token (any case)' }),
    last_event_id: lastEventId.optional().meta({ description: 'Resume after this event id (the Last-Event-ID header takes precedence)' }),
  }),
  success: { description: 'The stream (text/event-stream), open until the client or the server ends it', mediaType: 'text/event-stream', schema: z.string() },
  errors: {
    400: 'A malformed or unknown parameter, or a malformed Last-Event-ID header',
    404: 'On a ClickHouse cluster (CLICKHOUSE_CLUSTER), where the stream is not offered',
    503: 'The store cannot be read, or the server is shutting down',
  },
})
