import { changesSince, feedPosition, positionToReadOn, recordPosition } from '../changes/change-feed.js'
import type { ClickHouseClient } from '../storage/clickhouse.js'
import type { Tables } from '../storage/tables.js'
import type { AlertEvent } from './alert-deliveries.js'
import { webhookBody, type AlertFiring } from './alert-firing.js'
import type { AlertFiringsStore } from './alert-firings-store.js'
import { ruleWallets, stillStands, walletTradeCandidates, windowBuckets, windowCandidate, type FiringCandidate, type WindowBucket } from './alert-matching.js'
import type { AlertRule } from './alert-rule.js'
import type { AlertRulesStore } from './alert-rules-store.js'
import { changedSwaps, liveSwapsOf, swapKey, tokenSwapsBetween, type AlertSwap } from './alert-swaps.js'

/** The alerts' name among the change feed's consumers. */
export const ALERTS_CONSUMER = 'alerts'

export interface AlertDelivery {
  event: AlertEvent
  rule_id: string
  firing_id: string
  webhook_id: string
  url: string
  body: string
}

export interface AlertEvaluationDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  rules: AlertRulesStore
  firings: AlertFiringsStore
  /** The tracked wallets (for rules that list none). */
  trackedWallets: () => Promise<ReadonlySet<string>>
  /** Enqueues one webhook delivery; enqueueing the same one again is a no-op. */
  deliver: (delivery: AlertDelivery) => Promise<void>
  clock?: () => number
}

export interface AlertEvaluationResult {
  fired: AlertFiring[]
  retracted: AlertFiring[]
  /** The feed position now recorded. */
  position: number
}

/**
 * One step of the alerts' change-feed consumer: the swaps changed since its recorded
 * position, evaluated against every active rule. New firings are delivered (enqueued),
 * then stored; firings whose swaps were retracted (and which, for a windowed kind, no
 * longer reach the threshold without them) are delivered as `alert.retracted`, then stored
 * so; only then is the position recorded. A step that stops before that is run again on the
 * same changes: a firing already stored is not delivered again, and a delivery enqueued
 * again keeps its job id, so each is sent once. The first step, and one whose position is
 * older than the feed keeps, starts at the feed's head.
 */
export async function evaluateAlerts(deps: AlertEvaluationDeps): Promise<AlertEvaluationResult> {
  const clock = deps.clock ?? Date.now
  const { clickhouse, tables } = deps
  const recorded = await positionToReadOn(clickhouse, tables, ALERTS_CONSUMER)
  // Never recorded, or longer ago than the feed keeps: alerts are about what happens from now on.
  if (recorded === null) {
    const head = await feedPosition(clickhouse, tables)
    await recordPosition(clickhouse, tables, ALERTS_CONSUMER, head)
    return { fired: [], retracted: [], position: head }
  }
  const range = await changesSince(clickhouse, tables, recorded)
  const result: AlertEvaluationResult = { fired: [], retracted: [], position: range.to }
  if (range.to === recorded) return result
  const rules = await deps.rules.active()
  if (rules.length > 0) {
    const { live, retractedKeys } = await changedSwaps(clickhouse, tables, range)
    const tracked = rules.some((r) => r.criteria.wallets === null) ? await deps.trackedWallets() : new Set<string>()
    const windows = new WindowSwaps(clickhouse, tables)
    result.fired = await fire(deps, rules, live, tracked, windows, clock)
    result.retracted = await retract(deps, rules, retractedKeys, tracked, windows, clock)
  }
  await recordPosition(clickhouse, tables, ALERTS_CONSUMER, range.to)
  return result
}

async function fire(
  deps: AlertEvaluationDeps,
  rules: readonly AlertRule[],
  live: readonly AlertSwap[],
  tracked: ReadonlySet<string>,
  windows: WindowSwaps,
  clock: () => number,
): Promise<AlertFiring[]> {
  if (live.length === 0) return []
  const candidates: FiringCandidate[] = []
  for (const rule of rules) {
    const wallets = ruleWallets(rule, tracked)
    if (rule.kind === 'wallet_trade') {
      candidates.push(...walletTradeCandidates(rule, live, wallets))
      continue
    }
    for (const bucket of windowBuckets(rule, live, wallets)) {
      const candidate = windowCandidate(bucket, await windows.of(bucket), wallets)
      if (candidate) candidates.push(candidate)
    }
  }
  const stored = await deps.firings.existing(candidates.map((c) => c.id))
  const fresh = [...new Map(candidates.filter((c) => !stored.has(c.id)).map((c) => [c.id, c])).values()]
  fresh.sort((a, b) => firstTime(a) - firstTime(b) || (a.id < b.id ? -1 : 1))
  const now = clock()
  const fired: AlertFiring[] = fresh.map((c, i) => ({ ...c, status: 'fired', sequence: now * 1000 + i, fired_at: now, retracted_at: null }))
  const byId = new Map(rules.map((r) => [r.id, r]))
  for (const firing of fired) await deliverAll(deps, 'alert.fired', firing, byId.get(firing.rule_id)!, now)
  await deps.firings.write(fired, now)
  return fired
}

async function retract(
  deps: AlertEvaluationDeps,
  activeRules: readonly AlertRule[],
  retractedKeys: readonly string[],
  tracked: ReadonlySet<string>,
  windows: WindowSwaps,
  clock: () => number,
): Promise<AlertFiring[]> {
  const dependents = await deps.firings.dependingOn(retractedKeys)
  if (dependents.length === 0) return []
  const live = new Map((await liveSwapsOf(deps.clickhouse, deps.tables, dependents.flatMap((f) => f.swaps.map((s) => s.hash)))).map((s) => [swapKey(s), s]))
  const rules = new Map(activeRules.map((r) => [r.id, r]))
  const now = clock()
  const retracted: AlertFiring[] = []
  for (const firing of dependents) {
    if (stillStands(firing, live)) continue
    const rule = rules.get(firing.rule_id) ?? (await deps.rules.get(firing.rule_id))
    if (firing.kind !== 'wallet_trade' && rule !== null) {
      // A window still at its threshold without the retracted swaps keeps its firing.
      const bucket: WindowBucket = { rule, token: firing.token, start: firing.window_start, end: firing.window_end }
      if (windowCandidate(bucket, await windows.of(bucket), ruleWallets(rule, tracked)) !== null) continue
    }
    const after: AlertFiring = { ...firing, status: 'retracted', retracted_at: now }
    if (rule !== null) await deliverAll(deps, 'alert.retracted', after, rule, now)
    retracted.push(after)
  }
  await deps.firings.write(retracted, now)
  return retracted
}

async function deliverAll(deps: AlertEvaluationDeps, event: AlertEvent, firing: AlertFiring, rule: AlertRule, now: number): Promise<void> {
  if (rule.webhooks.length === 0) return
  const body = webhookBody(event, firing, rule, now)
  for (const webhook of rule.webhooks) {
    await deps.deliver({ event, rule_id: rule.id, firing_id: firing.id, webhook_id: webhook.id, url: webhook.url, body })
  }
}

function firstTime(c: FiringCandidate): number {
  return Math.min(...c.swaps.map((s) => Number(s.timestamp_ms)))
}

/** Each (token, window)'s swaps read once per step. */
class WindowSwaps {
  private readonly read = new Map<string, Promise<AlertSwap[]>>()
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  of(bucket: WindowBucket): Promise<AlertSwap[]> {
    const key = `${bucket.token}\n${bucket.start}\n${bucket.end}`
    let swaps = this.read.get(key)
    if (!swaps) {
      swaps = tokenSwapsBetween(this.clickhouse, this.tables, bucket.token, bucket.start, bucket.end)
      this.read.set(key, swaps)
    }
    return swaps
  }
}
