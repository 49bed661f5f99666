import type { TypedQueue } from '../shared/platform/queue-factory.js'
import type { QueueNames } from '../shared/platform/queues.js'

export type { IndicatorJobPayload } from '../shared/platform/queue-factory.js'
/** The indicators queue (opened by shared/platform/queue-factory.ts with its default job options). */
export type IndicatorQueue = TypedQueue<typeof QueueNames.indicators>

/** Finished jobs are kept a while (so a waiting client sees the result), then dropped. */
export { DEFAULT_JOB_RETENTION as indicatorJobRetention } from '../shared/platform/queue-factory.js'
