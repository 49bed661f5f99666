import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client'

/**
 * The metrics every role records, declared once, in the process's default registry:
 * GET /metrics (api/metrics-route.ts) serves them in Prometheus format. In embedded mode
 * one process runs every role, so one scrape sees them all; in server mode each process
 * that serves HTTP shows its own.
 */
export const metricsRegistry = register

// The process's own: CPU, memory, event loop lag, garbage collection.
collectDefaultMetrics({ register })

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by route pattern, method and status, and how long they took',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
})

export const rowsInserted = new Counter({
  name: 'clickhouse_rows_inserted_total',
  help: 'Rows the ingest workers inserted into ClickHouse, by table',
  labelNames: ['table'] as const,
})

export const insertDuration = new Histogram({
  name: 'clickhouse_insert_duration_seconds',
  help: 'How long one batched insert took, by table',
  labelNames: ['table'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
})

export const swapStreamClients = new Gauge({
  name: 'swap_stream_clients',
  help: 'GET /stream/swaps: the streams open in this process',
})

export const swapStreamsEnded = new Counter({
  name: 'swap_stream_ended_total',
  help: 'GET /stream/swaps: the streams the server ended, by reason (slow_client, shutdown, unavailable)',
  labelNames: ['reason'] as const,
})

export const alertStreamClients = new Gauge({
  name: 'alert_stream_clients',
  help: 'GET /stream/alerts: the streams open in this process',
})

export const alertStreamsEnded = new Counter({
  name: 'alert_stream_ended_total',
  help: 'GET /stream/alerts: the streams the server ended, by reason (slow_client, shutdown, unavailable)',
  labelNames: ['reason'] as const,
})
