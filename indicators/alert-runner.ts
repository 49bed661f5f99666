import { DEFAULT_DELIVERY_RETRIES, enqueueDelivery, type AlertDeliveriesQueue, type DeliveryRetries } from '../shared/alerts/alert-deliveries.js'
import { AlertFiringsStore } from '../shared/alerts/alert-firings-store.js'
import { AlertRulesStore } from '../shared/alerts/alert-rules-store.js'
import type { AlertSenderOptions } from '../shared/alerts/alert-sender.js'
import { alertTrackedWallets } from '../shared/alerts/alert-tracked-wallets.js'
import type { Logger } from '../shared/platform/logger.js'
import type { QueueFactory } from '../shared/platform/queue-factory.js'
import { QueueNames } from '../shared/platform/queues.js'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { startAlertDeliveryWorker } from './alert-delivery-worker.js'
import { startAlertEvaluator } from './alert-evaluator.js'

export interface AlertsDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
  queues: QueueFactory
  trackedWalletsFile: string | null
  pollMs?: number
  retries?: DeliveryRetries
  sender?: AlertSenderOptions
  /** A delivery's lock duration (ALERT_DELIVERY_STALLED_MS). */
  stalledMs?: number
}

/** The alerts in the indicators role: the change-feed evaluator and the webhook delivery worker. */
export function startAlerts(deps: AlertsDeps): { stop(): Promise<void> } {
  const rules = new AlertRulesStore(deps.clickhouse, deps.tables)
  const queue = deps.queues.queue(QueueNames.alertDeliveries) as unknown as AlertDeliveriesQueue
  const retries = deps.retries ?? DEFAULT_DELIVERY_RETRIES
  const worker = startAlertDeliveryWorker(deps.queues, queue, rules, { ...deps.sender, stalledMs: deps.stalledMs })
  const evaluator = startAlertEvaluator({
    clickhouse: deps.clickhouse,
    tables: deps.tables,
    logger: deps.logger,
    rules,
    firings: new AlertFiringsStore(deps.clickhouse, deps.tables),
    trackedWallets: alertTrackedWallets(deps.clickhouse, deps.tables, new TrackedWalletsFile(deps.trackedWalletsFile)),
    deliver: async (delivery) => {
      await enqueueDelivery(queue, delivery, retries)
    },
    pollMs: deps.pollMs ?? 200,
  })
  return {
    async stop() {
      await evaluator.stop()
      await worker.close()
    },
  }
}
