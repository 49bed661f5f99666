import { createHash } from 'node:crypto'
import type { AlertKind, AlertRule } from './alert-rule.js'
import { swapKey, type AlertSwap } from './alert-swaps.js'

/** Evidence swaps kept with a windowed firing at most (the earliest of its window). */
export const MAX_EVIDENCE_SWAPS = 200

export interface AlertFiring {
  id: string
  rule_id: string
  kind: AlertKind
  token: string
  /** The trading wallet of a wallet_trade firing; '' for a windowed one. */
  wallet_address: string
  /** A windowed firing's bucket [start, end) in ms; 0 for a wallet_trade one. */
  window_start: number
  window_end: number
  /** The trade's USD value, the distinct buyers, or the net USD inflow. */
  value: number
  swap_keys: string[]
  swaps: AlertSwap[]
  status: 'fired' | 'retracted'
  /** Firing order (ms of the evaluation × 1000 + place in it). */
  sequence: number
  fired_at: number
  retracted_at: number | null
}

/** What every firing id starts with; 32 hexadecimal digits follow. */
export const FIRING_ID_PREFIX = 'alert_'

/**
 * A firing's id, from the rule and what fired: the swap for wallet_trade, the token and the
 * window's start for a windowed kind. The same changes read again give the same ids.
 */
export function firingId(ruleId: string, what: { swap: AlertSwap } | { token: string; windowStart: number }): string {
  const subject = 'swap' in what ? `swap\n${swapKey(what.swap)}` : `window\n${what.token}\n${what.windowStart}`
  return `${FIRING_ID_PREFIX}${createHash('sha256').update(`${ruleId}\n${subject}`).digest('hex').slice(0, 32)}`
}

/** A firing as GET /alerts and the webhooks show it. */
export function firingJson(f: AlertFiring): Record<string, unknown> {
  const valueName = f.kind === 'wallet_trade' ? 'value_usd' : f.kind === 'buyers' ? 'buyers' : 'net_inflow_usd'
  return {
    id: f.id,
    rule_id: f.rule_id,
    kind: f.kind,
    status: f.status,
    token: f.token === '' ? null : f.token,
    wallet_address: f.wallet_address === '' ? null : f.wallet_address,
    window: f.kind === 'wallet_trade' ? null : { start: f.window_start, end: f.window_end },
    [valueName]: f.value,
    fired_at: f.fired_at,
    retracted_at: f.retracted_at,
    evidence: {
      swap_keys: f.swap_keys,
      swaps: f.swaps.map((s) => ({
        key: swapKey(s),
        chain_id: s.chain_id,
        hash: s.hash,
        block_number: s.block_number,
        timestamp: Number(s.timestamp_ms),
        wallet_address: s.wallet_address,
        token_sold_address: s.token_sold_address,
        token_sold_amount: s.token_sold_amount,
        token_bought_address: s.token_bought_address,
        token_bought_amount: s.token_bought_amount,
        value_usd: s.value_usd,
        dex: s.dex,
      })),
    },
  }
}

/** The Standard Webhooks payload of an event: `type`, `timestamp` and the firing with its rule's name as `data`. */
export function webhookBody(event: 'alert.fired' | 'alert.retracted', firing: AlertFiring, rule: Pick<AlertRule, 'name'>, at: number): string {
  return JSON.stringify({ type: event, timestamp: new Date(at).toISOString(), data: { ...firingJson(firing), rule_name: rule.name } })
}
