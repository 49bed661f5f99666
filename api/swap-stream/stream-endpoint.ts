import { z } from 'zod'
import { defineEndpoint } from '../contract/endpoint.js'
import { addressParam, flagParam, nonEmptyParam, shown, singleValue, strictQuery } from '../contract/parameters.js'
import { parseEventId } from './event-id.js'

export const LAST_EVENT_ID_MESSAGE = 'must be the id of an event of this stream: "<block>-<index>", e.g. "1234-1"'

export const NOT_ON_A_CLUSTER_MESSAGE =
  'GET /stream/swaps is not offered on a ClickHouse cluster (CLICKHOUSE_CLUSTER): its positions are per shard; read GET /swap-transactions instead'

const minValueUsd = singleValue('min_value_usd')
  .refine((raw) => /^\d+(\.\d+)?$/.test(raw) && Number.isFinite(Number(raw)), {
    error: (issue) => `min_value_usd must be a non-negative number of USD (got "${shown(issue.input)}")`,
  })
  .transform(Number)

const lastEventId = singleValue('last_event_id')
  .refine((raw) => parseEventId(raw) !== null, { error: (issue) => `last_event_id ${LAST_EVENT_ID_MESSAGE} (got "${shown(issue.input)}")` })
  .transform((raw) => parseEventId(raw)!)

export const streamSwaps = defineEndpoint({
  path: '/stream/swaps',
  operationId: 'streamSwaps',
  tag: 'Swap transactions',
  summary: 'A live Server-Sent Events stream of the swaps stored from now on (or after Last-Event-ID)',
  description:
    'Events: `swap` (data: the swap as GET /swap-transactions lists it), `retraction` (data: chain_id, hash, timestamp_ms, wallet_address of a swap version no longer stored), ' +
    '`reset` (the Last-Event-ID cannot be resumed from: the stream starts from now), `closed` (the last event: data.reason `slow_client` or `shutdown`). ' +
    'Each swap and retraction has an id `<block>-<index>`; reconnecting with it (the Last-Event-ID header, or last_event_id) resumes after it. ' +
    'A `: heartbeat` comment comes every SWAP_STREAM_HEARTBEAT_MS (15 s by default). See docs/api.md, Live swaps.',
  query: strictQuery({
    address: addressParam('address').optional().meta({ description: 'Only swaps of this wallet (any case)' }),
    token_id: nonEmptyParam('token_id').optional().meta({ description: 'Only swaps whose sold or bought token has this id' }),
    tracked: flagParam('tracked').meta({ description: 'true: only swaps of the tracked wallets (GET /wallets)' }),
    min_value_usd: minValueUsd.optional().meta({ description: 'Only swaps worth at least this many USD (a swap without a USD value is left out)' }),
    last_event_id: lastEventId.optional().meta({ description: 'Resume after this event id (the Last-Event-ID header takes precedence)' }),
  }),
  success: { description: 'The stream (text/event-stream), open until the client or the server ends it', mediaType: 'text/event-stream', schema: z.string() },
  errors: {
    400: 'A malformed or unknown parameter, or a malformed Last-Event-ID header',
    404: 'On a ClickHouse cluster (CLICKHOUSE_CLUSTER), where the stream is not offered',
    503: 'The store cannot be read, or the server is shutting down',
  },
})
