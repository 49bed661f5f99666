import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { pageEnvelope } from '../envelopes.js'
import { addressParam, limitParam, nonEmptyParam, offsetParam, optionalTimeParam, strictQuery } from '../parameters.js'

/** The alert firings (shared/alerts/alert-firing.ts firingJson); the rules are kept under /admin/alerts. */

const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/)

const evidenceSwapSchema = z
  .strictObject({
    key: z.string().meta({ description: '`<chain_id>:<hash>`' }),
    chain_id: z.int(),
    hash: z.string(),
    block_number: z.string(),
    timestamp: z.int().meta({ description: 'ms since the epoch' }),
    wallet_address: lowerAddress,
    token_sold_address: z.string(),
    token_sold_amount: z.string(),
    token_bought_address: z.string(),
    token_bought_amount: z.string(),
    value_usd: z.number().nullable(),
    dex: z.string().nullable(),
  })
  .meta({ id: 'AlertEvidenceSwap' })

const alertSchema = z
  .strictObject({
    id: z.string(),
    rule_id: z.string(),
    kind: z.enum(['wallet_trade', 'buyers', 'net_inflow']),
    status: z.enum(['fired', 'retracted']),
    token: lowerAddress.nullable(),
    wallet_address: lowerAddress.nullable().meta({ description: 'The trading wallet (wallet_trade); null for a windowed kind' }),
    window: z.strictObject({ start: z.int(), end: z.int() }).nullable().meta({ description: 'The window [start, end) in ms (buyers, net_inflow)' }),
    value_usd: z.number().optional().meta({ description: 'wallet_trade: the trade’s USD value' }),
    buyers: z.int().optional().meta({ description: 'buyers: distinct watched wallets that bought in the window' }),
    net_inflow_usd: z.number().optional().meta({ description: 'net_inflow: USD bought minus sold in the window' }),
    fired_at: z.int(),
    retracted_at: z.int().nullable(),
    evidence: z.strictObject({ swap_keys: z.array(z.string()), swaps: z.array(evidenceSwapSchema) }),
  })
  .meta({ id: 'Alert' })

export const listAlerts = defineEndpoint({
  path: '/alerts',
  operationId: 'listAlerts',
  tag: 'Alerts',
  summary: 'The alert firings, newest first, each with the swaps that made it fire',
  description: 'Rules are kept under /admin/alerts (docs/api.md, Alerts). since is inclusive and until exclusive, on fired_at.',
  query: strictQuery({
    rule_id: nonEmptyParam('rule_id').optional(),
    token: addressParam('token').optional(),
    since: optionalTimeParam('since'),
    until: optionalTimeParam('until'),
    limit: limitParam(),
    offset: offsetParam,
  }),
  success: { description: 'A page of alert firings', schema: pageEnvelope(alertSchema) },
  errors: { 400: 'A malformed filter or an unknown parameter' },
})
