import type { Processor } from 'bullmq'
import { alertSender, type AlertSenderOptions } from '../shared/alerts/alert-sender.js'
import type { AlertDeliveriesQueue } from '../shared/alerts/alert-deliveries.js'
import type { AlertRulesStore } from '../shared/alerts/alert-rules-store.js'
import type { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'

/** Delivers the alerts' webhooks: a worker on alert-deliveries sending each job (shared/alerts/alert-sender.ts). */
export function startAlertDeliveryWorker(
  queues: QueueFactory,
  queue: AlertDeliveriesQueue,
  rules: AlertRulesStore,
  options: AlertSenderOptions & { concurrency?: number } = {},
) {
  const send = alertSender(queue, rules, options)
  return queues.worker(QueueNames.alertDeliveries, send as unknown as Processor, { concurrency: options.concurrency ?? 8 })
}
