import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { resultEnvelope } from '../envelopes.js'

/** The operator's endpoints (health-routes.ts, metrics-route.ts), documented briefly. */

export const health = defineEndpoint({
  path: '/health',
  operationId: 'health',
  tag: 'Operations',
  summary: 'Liveness: 200 while the process serves requests',
  success: { description: 'Alive', schema: resultEnvelope(z.strictObject({ status: z.literal('ok') })) },
  errors: {},
  open: true,
})

export const ready = defineEndpoint({
  path: '/ready',
  operationId: 'ready',
  tag: 'Operations',
  summary: 'Readiness: 200 when ClickHouse, the schema and Redis answer',
  success: { description: 'Ready', schema: resultEnvelope(z.strictObject({ status: z.literal('ready') })) },
  errors: { 503: 'Not ready: the message names what is down' },
  open: true,
})

export const metrics = defineEndpoint({
  path: '/metrics',
  operationId: 'metrics',
  tag: 'Operations',
  summary: "Prometheus metrics: request latency, queues, dead letters, inserts, the process's own",
  success: { description: "Prometheus's text exposition format", mediaType: 'text/plain; version=0.0.4; charset=utf-8' },
  errors: {},
  open: true,
})
