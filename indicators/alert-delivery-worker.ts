import type { Processor } from 'bullmq'
import { alertSender, type AlertSenderOptions } from '../shared/alerts/alert-sender.js'
import type { AlertDeliveriesQueue } from '../shared/alerts/alert-deliveries.js'
import type { AlertRulesStore } from '../shared/alerts/alert-rules-store.js'
import type { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'

/**
 * How often a delivery may be in hand when its process dies and still be sent again.
 * BullMQ's default (1) failed for good a delivery in flight at two crashes, though the
 * receiver never had it; only a delivery that kills its process every time should end
 * failed (listed, and re-drivable).
 */
const MAX_STALLED_DELIVERIES = 10

/** Delivers the alerts' webhooks: a worker on alert-deliveries sending each job (shared/alerts/alert-sender.ts). */
export function startAlertDeliveryWorker(
  queues: QueueFactory,
  queue: AlertDeliveriesQueue,
  rules: AlertRulesStore,
  options: AlertSenderOptions & { concurrency?: number; stalledMs?: number } = {},
) {
  const send = alertSender(queue, rules, options)
  const stalled = options.stalledMs === undefined ? {} : { lockDuration: options.stalledMs, stalledInterval: options.stalledMs }
  return queues.worker(QueueNames.alertDeliveries, send as unknown as Processor, {
    concurrency: options.concurrency ?? 8,
    maxStalledCount: MAX_STALLED_DELIVERIES,
    ...stalled,
  })
}
