import { Router } from 'express'
import { Registry } from 'prom-client'
import { metricsRegistry } from '../shared/platform/metrics.js'
import type { QueueMetrics } from './queue-metrics.js'

/** GET /metrics: every metric of this process and this API's queue gauges, in Prometheus's text format. */
export function metricsRouter(queueMetrics: QueueMetrics): Router {
  const router = Router()
  router.get('/metrics', async (_req, res) => {
    const merged = Registry.merge([metricsRegistry, queueMetrics.registry])
    res.type(merged.contentType).send(await merged.metrics())
  })
  return router
}
