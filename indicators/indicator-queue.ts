import { Queue } from 'bullmq'
import type { Config } from '../shared/config.js'
import {
  QueueNames,
  type IndicatorJobData,
  type IndicatorJobName,
  type IndicatorJobResult,
} from '../shared/queues.js'
import type { Redis } from '../shared/redis.js'

export type IndicatorJobPayload = IndicatorJobData[IndicatorJobName]
export type IndicatorQueue = Queue<IndicatorJobPayload, IndicatorJobResult, IndicatorJobName>

/** Finished jobs are kept a while (so a waiting client sees the result), then dropped. */
export const indicatorJobRetention = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
} as const

export function openIndicatorQueue(redis: Config['redis'], connection: Redis): IndicatorQueue {
  return new Queue<IndicatorJobPayload, IndicatorJobResult, IndicatorJobName>(QueueNames.indicators, {
    connection,
    prefix: redis.prefix,
    defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, ...indicatorJobRetention },
  })
}
