import { z } from 'zod'

/**
 * An alert rule as an operator writes it (POST/PUT /admin/alerts), validated once here.
 *
 * - `wallet_trade`: a wallet (listed, or else a tracked one) trades (`token`, when given) for
 *   at least `min_value_usd`.
 * - `buyers`: at least `min_wallets` distinct wallets bought a token within one `window`.
 * - `net_inflow`: the wallets' USD bought minus sold of a token within one `window` is at
 *   least `min_inflow_usd`.
 *
 * Windows are fixed buckets of their length from the epoch (a 1h window: each clock hour),
 * so a windowed rule fires at most once per token and bucket.
 */

export const ALERT_KINDS = ['wallet_trade', 'buyers', 'net_inflow'] as const
export type AlertKind = (typeof ALERT_KINDS)[number]

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const MIN_WINDOW_MS = 60_000
const MAX_WINDOW_MS = 7 * 86_400_000

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((a) => a.toLowerCase())

/** A window as `<n><s|m|h|d>` (e.g. "15m", "1h"), from 1 minute to 7 days, in ms. */
const windowSpec = z
  .string()
  .regex(/^[1-9]\d{0,6}[smhd]$/, 'must be a duration such as "15m", "1h" or "1d"')
  .transform((w) => Number(w.slice(0, -1)) * UNIT_MS[w.slice(-1) as keyof typeof UNIT_MS])
  .refine((ms) => ms >= MIN_WINDOW_MS && ms <= MAX_WINDOW_MS, 'must be from 1m to 7d')

export const webhookUrl = z
  .string()
  .max(2048)
  .refine((u) => {
    try {
      const url = new URL(u)
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
    } catch {
      return false
    }
  }, 'must be an absolute http or https URL')

/** A Standard Webhooks secret an operator brings: `whsec_` and 24 to 64 bytes in base64. */
const webhookSecret = z
  .string()
  .regex(/^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be "whsec_" and base64')
  .refine((s) => {
    const bytes = Buffer.from(s.slice('whsec_'.length), 'base64').length
    return bytes >= 24 && bytes <= 64
  }, 'must hold 24 to 64 bytes')

/** A webhook: its URL, and a secret when the operator brings one (else one is generated). */
const webhookInput = z.object({ url: webhookUrl, secret: webhookSecret.optional() }).strict()

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200),
  active: z.boolean().default(true),
  /** Absent: the tracked wallets. */
  wallets: z.array(address).min(1).max(10_000).optional(),
  token: address.optional(),
  webhooks: z.array(webhookInput).max(10).default([]),
}

export const alertRuleInput = z.discriminatedUnion(
  'kind',
  [
    z.object({ ...common, kind: z.literal('wallet_trade'), min_value_usd: z.number().finite().min(0).default(0) }).strict(),
    z.object({ ...common, kind: z.literal('buyers'), min_wallets: z.number().int().min(1).max(10_000), window: windowSpec }).strict(),
    z.object({ ...common, kind: z.literal('net_inflow'), min_inflow_usd: z.number().finite(), window: windowSpec }).strict(),
  ],
  { error: () => `must be one of ${ALERT_KINDS.join(', ')}` },
)

export type AlertRuleInput = z.infer<typeof alertRuleInput>

/** What a rule tests, without its name, webhooks or state (stored as JSON). */
export interface AlertCriteria {
  wallets: string[] | null
  token: string | null
  min_value_usd?: number
  min_wallets?: number
  min_inflow_usd?: number
  window_ms?: number
}

export interface AlertWebhook {
  id: string
  url: string
  secret: string
}

export interface AlertRule {
  id: string
  name: string
  kind: AlertKind
  active: boolean
  criteria: AlertCriteria
  webhooks: AlertWebhook[]
  created_at: number
  updated_at: number
}

export function criteriaOf(input: AlertRuleInput): AlertCriteria {
  const base = { wallets: input.wallets ?? null, token: input.token ?? null }
  switch (input.kind) {
    case 'wallet_trade':
      return { ...base, min_value_usd: input.min_value_usd }
    case 'buyers':
      return { ...base, min_wallets: input.min_wallets, window_ms: input.window }
    case 'net_inflow':
      return { ...base, min_inflow_usd: input.min_inflow_usd, window_ms: input.window }
  }
}

/** The window back as written ("1h"), in the largest unit that divides it. */
export function windowText(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`
  return `${ms / 1000}s`
}

/** A rule as the API shows it: the body it was written with, its id, state and webhooks (secrets only when `withSecrets`). */
export function ruleJson(rule: AlertRule, withSecrets: ReadonlySet<string> | 'all' | 'none' = 'none'): Record<string, unknown> {
  const c = rule.criteria
  return {
    id: rule.id,
    name: rule.name,
    kind: rule.kind,
    active: rule.active,
    wallets: c.wallets,
    token: c.token,
    ...(c.min_value_usd !== undefined ? { min_value_usd: c.min_value_usd } : {}),
    ...(c.min_wallets !== undefined ? { min_wallets: c.min_wallets } : {}),
    ...(c.min_inflow_usd !== undefined ? { min_inflow_usd: c.min_inflow_usd } : {}),
    ...(c.window_ms !== undefined ? { window: windowText(c.window_ms), window_ms: c.window_ms } : {}),
    webhooks: rule.webhooks.map((w) =>
      withSecrets === 'all' || (withSecrets !== 'none' && withSecrets.has(w.id)) ? { id: w.id, url: w.url, secret: w.secret } : { id: w.id, url: w.url },
    ),
    created_at: rule.created_at,
    updated_at: rule.updated_at,
  }
}

/** The input a stored rule was written with, for a PATCH to merge into. */
export function inputOf(rule: AlertRule): Record<string, unknown> {
  const c = rule.criteria
  return {
    name: rule.name,
    kind: rule.kind,
    active: rule.active,
    ...(c.wallets ? { wallets: c.wallets } : {}),
    ...(c.token ? { token: c.token } : {}),
    ...(c.min_value_usd !== undefined ? { min_value_usd: c.min_value_usd } : {}),
    ...(c.min_wallets !== undefined ? { min_wallets: c.min_wallets } : {}),
    ...(c.min_inflow_usd !== undefined ? { min_inflow_usd: c.min_inflow_usd } : {}),
    ...(c.window_ms !== undefined ? { window: windowText(c.window_ms) } : {}),
    webhooks: rule.webhooks.map((w) => ({ url: w.url })),
  }
}

/** A zod issue as `field: message`, so a 400 names the field. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message
}
