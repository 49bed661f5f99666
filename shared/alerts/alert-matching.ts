import { firingId, MAX_EVIDENCE_SWAPS, type AlertFiring } from './alert-firing.js'
import type { AlertRule } from './alert-rule.js'
import { swapKey, type AlertSwap } from './alert-swaps.js'

/** A firing before it is numbered and stamped. */
export type FiringCandidate = Omit<AlertFiring, 'status' | 'sequence' | 'fired_at' | 'retracted_at'>

/** A windowed rule's (token, bucket) that swaps of the range touched: evaluated over the whole bucket. */
export interface WindowBucket {
  rule: AlertRule
  token: string
  start: number
  end: number
}

/** The wallets a rule watches: its own list, or else the tracked ones. */
export function ruleWallets(rule: AlertRule, tracked: ReadonlySet<string>): ReadonlySet<string> {
  return rule.criteria.wallets === null ? tracked : new Set(rule.criteria.wallets)
}

function touches(swap: AlertSwap, token: string): boolean {
  return swap.token_bought_address === token || swap.token_sold_address === token
}

/** wallet_trade: each swap of a watched wallet (in the rule's token, when named) worth at least the minimum; an unpriced swap only at a minimum of 0. */
export function walletTradeCandidates(rule: AlertRule, swaps: readonly AlertSwap[], wallets: ReadonlySet<string>): FiringCandidate[] {
  const min = rule.criteria.min_value_usd ?? 0
  const token = rule.criteria.token
  return swaps
    .filter((s) => wallets.has(s.wallet_address) && (token === null || touches(s, token)))
    .filter((s) => (s.value_usd === null ? min === 0 : s.value_usd >= min))
    .map((s) => ({
      id: firingId(rule.id, { swap: s }),
      rule_id: rule.id,
      kind: rule.kind,
      token: token ?? s.token_bought_address,
      wallet_address: s.wallet_address,
      window_start: 0,
      window_end: 0,
      value: s.value_usd ?? 0,
      swap_keys: [swapKey(s)],
      swaps: [s],
    }))
}

/** The (token, bucket) pairs a windowed rule must look at after these swaps: bought tokens for buyers, either leg for net_inflow. */
export function windowBuckets(rule: AlertRule, swaps: readonly AlertSwap[], wallets: ReadonlySet<string>): WindowBucket[] {
  const windowMs = rule.criteria.window_ms!
  const buckets = new Map<string, WindowBucket>()
  for (const s of swaps) {
    if (!wallets.has(s.wallet_address)) continue
    const tokens = rule.kind === 'buyers' ? [s.token_bought_address] : [s.token_bought_address, s.token_sold_address]
    for (const token of tokens) {
      if (token === '' || (rule.criteria.token !== null && token !== rule.criteria.token)) continue
      const start = Math.floor(Number(s.timestamp_ms) / windowMs) * windowMs
      buckets.set(`${token}\n${start}`, { rule, token, start, end: start + windowMs })
    }
  }
  return [...buckets.values()]
}

/** A windowed rule over every swap of its bucket's token and window: a firing when the bucket reaches the threshold. */
export function windowCandidate(bucket: WindowBucket, swaps: readonly AlertSwap[], wallets: ReadonlySet<string>): FiringCandidate | null {
  const { rule, token } = bucket
  const watched = swaps.filter((s) => wallets.has(s.wallet_address) && touches(s, token))
  let value: number
  let evidence: AlertSwap[]
  if (rule.kind === 'buyers') {
    evidence = watched.filter((s) => s.token_bought_address === token)
    value = new Set(evidence.map((s) => s.wallet_address)).size
    if (value < rule.criteria.min_wallets!) return null
  } else {
    evidence = watched
    value = watched.reduce((sum, s) => sum + (s.value_usd ?? 0) * (s.token_bought_address === token ? 1 : -1), 0)
    if (value < rule.criteria.min_inflow_usd!) return null
  }
  evidence = evidence.slice(0, MAX_EVIDENCE_SWAPS)
  return {
    id: firingId(rule.id, { token, windowStart: bucket.start }),
    rule_id: rule.id,
    kind: rule.kind,
    token,
    wallet_address: '',
    window_start: bucket.start,
    window_end: bucket.end,
    value,
    swap_keys: evidence.map(swapKey),
    swaps: evidence,
  }
}

/** Whether a fired firing still stands: each of its swaps live, by the same wallet. */
export function stillStands(firing: Pick<AlertFiring, 'swaps'>, live: ReadonlyMap<string, AlertSwap>): boolean {
  return firing.swaps.every((s) => live.get(swapKey(s))?.wallet_address === s.wallet_address)
}
