import type { Router } from 'express'
import { liveStreamRouter } from '../sse/stream-route.js'
import { parseEventId } from './event-id.js'
import { LAST_EVENT_ID_MESSAGE, NOT_ON_A_CLUSTER_MESSAGE, streamSwaps } from './stream-endpoint.js'
import type { SwapStreamHub } from './swap-stream-hub.js'

/** GET /stream/swaps (null: on a cluster, not offered). */
export function swapStreamRouter(hub: SwapStreamHub | null): Router {
  return liveStreamRouter({
    endpoint: streamSwaps,
    hub,
    filterOf: (query) => ({ wallet: query.address, tokenId: query.token_id, tracked: query.tracked, minValueUsd: query.min_value_usd }),
    resumeOf: (query) => query.last_event_id ?? null,
    parseEventId,
    eventIdMessage: LAST_EVENT_ID_MESSAGE,
    notOfferedMessage: NOT_ON_A_CLUSTER_MESSAGE,
  })
}
