import { DelayedError, type Job } from 'bullmq'
import { Webhook } from 'standardwebhooks'
import { headsItsWebhook, markDone, queueRedis, type AlertDeliveriesQueue, type AlertDeliveryData } from './alert-deliveries.js'
import type { AlertRulesStore } from './alert-rules-store.js'
import type { AlertRule } from './alert-rule.js'

export interface AlertSenderOptions {
  /** How long a delivery waiting behind an earlier one of its webhook waits at most before looking again (it is woken when that one is done). */
  orderWaitMs?: number
  /** How long a receiver has to answer. */
  timeoutMs?: number
}

export interface AlertSendResult {
  status: number | null
  /** Why nothing was sent: the rule or the webhook is gone. */
  skipped?: string
}

/**
 * Sends one delivery (a BullMQ job of alert-deliveries), signed per Standard Webhooks with
 * its webhook's secret: headers webhook-id (the job id, the same on every attempt),
 * webhook-timestamp and webhook-signature over the body as enqueued. A 2xx answer completes
 * it; anything else throws, and BullMQ retries with exponential backoff. A delivery waits
 * while an earlier one of its webhook is not done (alert-deliveries.ts): it is moved to
 * delayed, and promoted by that one when it is done (markDone); orderWaitMs is a backstop.
 * Rules are read at most once per RULE_FRESH_MS each: a webhook's deliveries go one after
 * another, and a store read before each would be most of their time.
 */
export function alertSender(queue: AlertDeliveriesQueue, rules: AlertRulesStore, options: AlertSenderOptions = {}) {
  const orderWaitMs = options.orderWaitMs ?? 30_000
  const timeoutMs = options.timeoutMs ?? 10_000
  const ruleOf = freshRules(rules)
  return async (job: Job<AlertDeliveryData>, token?: string): Promise<AlertSendResult> => {
    const redis = await queueRedis(queue)
    if (!(await headsItsWebhook(queue, redis, job))) {
      await job.moveToDelayed(Date.now() + orderWaitMs, token)
      // The one ahead may have been done between the look and the move, promoting nothing.
      if (await headsItsWebhook(queue, redis, job)) await job.promote().catch(() => undefined)
      throw new DelayedError()
    }
    const rule = await ruleOf(job.data.rule_id)
    const webhook = rule?.webhooks.find((w) => w.id === job.data.webhook_id)
    if (!webhook) {
      await markDone(queue, redis, job)
      return { status: null, skipped: rule ? 'the webhook was removed from its rule' : 'the rule was deleted' }
    }
    try {
      const status = await post(job, webhook, timeoutMs)
      await markDone(queue, redis, job)
      return { status }
    } catch (err) {
      // The last attempt failed: the delivery stays failed and no longer holds the others back.
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await markDone(queue, redis, job)
      throw err
    }
  }
}

/** How long a rule read for a delivery serves the next ones: a change to a rule reaches deliveries within it. */
const RULE_FRESH_MS = 1_000

function freshRules(rules: AlertRulesStore): (id: string) => Promise<AlertRule | null> {
  const read = new Map<string, { at: number; rule: Promise<AlertRule | null> }>()
  return (id) => {
    const known = read.get(id)
    if (known !== undefined && Date.now() - known.at < RULE_FRESH_MS) return known.rule
    const rule = rules.get(id)
    read.set(id, { at: Date.now(), rule })
    rule.catch(() => read.delete(id))
    return rule
  }
}

/** One signed POST; a non-2xx answer throws. */
async function post(job: Job<AlertDeliveryData>, webhook: { url: string; secret: string }, timeoutMs: number): Promise<number> {
  const at = new Date()
  const signature = new Webhook(webhook.secret).sign(job.id!, at, job.data.body)
  const res = await fetch(webhook.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': job.id!,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body: job.data.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  })
  await res.body?.cancel()
  if (res.status < 200 || res.status >= 300) throw new Error(`the receiver answered ${res.status}`)
  return res.status
}
