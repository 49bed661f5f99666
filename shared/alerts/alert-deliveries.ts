import { createHash } from 'node:crypto'
import type { Job, Queue } from 'bullmq'
import type { Redis } from '../platform/redis.js'

/**
 * The alert-deliveries queue: one job per (firing event, webhook), its id the Standard
 * Webhooks message id (`webhook-id`), derived from the rule, the firing, the webhook and the
 * event, so enqueueing it again is a no-op and a retry or a re-drive keeps it.
 *
 * Order per webhook: each job takes a sequence number when enqueued (one counter, so firing
 * order) and is listed under it in its webhook's sorted set. A job is sent only when it
 * heads that set; otherwise it waits (moved to delayed, which spends no attempt) until the
 * jobs before it were delivered or failed for good. A receiver that was down therefore gets
 * every firing once, in order, when it is back. A job whose attempts are spent stays in the
 * failed set (GET /admin/alerts/deliveries?status=failed) and no longer holds the others
 * back; a re-drive puts it back in the set under its first number.
 */

export type AlertEvent = 'alert.fired' | 'alert.retracted'

export interface AlertDeliveryData {
  event: AlertEvent
  rule_id: string
  firing_id: string
  webhook_id: string
  url: string
  sequence: number
  /** The JSON body, signed as is. */
  body: string
}

export type AlertDeliveriesQueue = Queue<AlertDeliveryData, unknown, AlertEvent>

export interface DeliveryRetries {
  attempts: number
  /** The first retry's delay; each next one doubles it. */
  backoffMs: number
}

export const DEFAULT_DELIVERY_RETRIES: DeliveryRetries = { attempts: 8, backoffMs: 2_000 }

/** The Standard Webhooks message id of one event of a firing to one webhook. */
export function deliveryId(ruleId: string, firingId: string, webhookId: string, event: AlertEvent): string {
  return `msg_${createHash('sha256').update(`${ruleId}\n${firingId}\n${webhookId}\n${event}`).digest('hex').slice(0, 32)}`
}

/** The queue's own connection (an ioredis client: QueueFactory's). */
export async function queueRedis(queue: AlertDeliveriesQueue): Promise<Redis> {
  return (await queue.client) as unknown as Redis
}

function orderKey(queue: { qualifiedName: string }, webhookId: string): string {
  return `${queue.qualifiedName}:order:${webhookId}`
}

export async function enqueueDelivery(
  queue: AlertDeliveriesQueue,
  delivery: Omit<AlertDeliveryData, 'sequence'>,
  retries: DeliveryRetries,
): Promise<string> {
  const redis = await queueRedis(queue)
  const id = deliveryId(delivery.rule_id, delivery.firing_id, delivery.webhook_id, delivery.event)
  const sequence = await redis.incr(`${queue.qualifiedName}:order-sequence`)
  await queue.add(delivery.event, { ...delivery, sequence }, {
    jobId: id,
    attempts: retries.attempts,
    backoff: { type: 'exponential', delay: retries.backoffMs },
    removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
    removeOnFail: false,
  })
  // After the job exists: an entry whose job cannot be found is taken for done (headsItsWebhook).
  // A job sent before this line had nothing ahead of it; NX: a job enqueued again keeps its place.
  await redis.zadd(orderKey(queue, delivery.webhook_id), 'NX', sequence, id)
  return id
}

/**
 * Whether `job` is the first of its webhook's deliveries still to send. Entries ahead of it
 * that are done (completed, failed for good, removed) are dropped on the way.
 */
export async function headsItsWebhook(queue: AlertDeliveriesQueue, redis: Redis, job: Job<AlertDeliveryData>): Promise<boolean> {
  const key = orderKey(queue, job.data.webhook_id)
  for (;;) {
    const [head] = await redis.zrange(key, 0, 0)
    if (head === undefined || head === job.id) return true
    const state = await queue.getJobState(head)
    if (state === 'completed' || state === 'failed' || state === 'unknown') {
      await redis.zrem(key, head)
      continue
    }
    return false
  }
}

/**
 * Takes a delivery that is done (sent, or failed for good) out of its webhook's order, and
 * lets the next one go at once rather than at its next look.
 */
export async function markDone(queue: AlertDeliveriesQueue, redis: Redis, job: Job<AlertDeliveryData>): Promise<void> {
  const key = orderKey(queue, job.data.webhook_id)
  await redis.zrem(key, job.id!)
  const [next] = await redis.zrange(key, 0, 0)
  if (next === undefined) return
  const waiting = await queue.getJob(next)
  if (waiting && (await waiting.getState()) === 'delayed') await waiting.promote().catch(() => undefined)
}

export const DELIVERY_STATES = ['failed', 'completed', 'waiting', 'delayed', 'active'] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]

export function deliveryJson(job: Job<AlertDeliveryData>, state: string): Record<string, unknown> {
  return {
    id: job.id,
    state,
    event: job.data.event,
    rule_id: job.data.rule_id,
    firing_id: job.data.firing_id,
    webhook_id: job.data.webhook_id,
    url: job.data.url,
    sequence: job.data.sequence,
    attempts_made: job.attemptsMade,
    failed_reason: job.failedReason ?? null,
    created_at: job.timestamp,
    finished_at: job.finishedOn ?? null,
  }
}

export async function listDeliveries(
  queue: AlertDeliveriesQueue,
  state: DeliveryState,
  page: { limit: number; offset: number },
): Promise<{ deliveries: Record<string, unknown>[]; total: number }> {
  const counts = await queue.getJobCounts(state)
  const jobs = page.limit === 0 ? [] : await queue.getJobs([state], page.offset, page.offset + page.limit - 1, true)
  return { deliveries: jobs.filter((j) => j !== undefined).map((j) => deliveryJson(j as Job<AlertDeliveryData>, state)), total: counts[state] ?? 0 }
}

/** Sends a failed delivery again under the same id, in its first place in its webhook's order; null: no such failed job. */
export async function redriveDelivery(queue: AlertDeliveriesQueue, id: string): Promise<{ state: string } | null> {
  const job = (await queue.getJob(id)) as Job<AlertDeliveryData> | undefined
  if (!job) return null
  const state = await job.getState()
  if (state !== 'failed') return { state }
  const redis = await queueRedis(queue)
  await redis.zadd(orderKey(queue, job.data.webhook_id), job.data.sequence, id)
  await job.retry('failed')
  return { state: 'waiting' }
}
