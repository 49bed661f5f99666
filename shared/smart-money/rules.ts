import type { WalletWindows, WindowStats } from './wallet-stats.js'
import type { RankedMeasure, SmartMoneyRule, StatWindow, ThresholdRule, TopRule } from '../platform/smart-money-settings.js'

/** How a wallet is judged against the selection rules (declared in platform/smart-money-settings.ts). */

/** One condition of a rule, with the wallet's value. */
export interface RuleCheck {
  measure: string
  operator: '>=' | '<=' | '>'
  required: number
  value: number | null
  passes: boolean
}

export interface RuleVerdict {
  rule: string
  window: StatWindow
  passes: boolean
  checks: RuleCheck[]
}

/** The value a ranked measure has in a window (null: undefined, e.g. ROI with nothing sold). */
export function measureOf(stats: WindowStats, measure: RankedMeasure): number | null {
  return measure === 'realized_pnl_usd' ? stats.realizedPnlUsd : measure === 'roi' ? stats.roi : stats.volumeUsd
}

function atLeast(measure: string, value: number | null, required: number | undefined): RuleCheck[] {
  if (required === undefined) return []
  return [{ measure, operator: '>=', required, value, passes: value !== null && value >= required }]
}

/** Why a wallet passes or fails a threshold rule: each minimum with its value. */
export function judgeThreshold(rule: ThresholdRule, stats: WalletWindows): RuleVerdict {
  const w = stats.windows[rule.window]
  const checks = [
    ...atLeast('trades', w.trades, rule.min_trades),
    ...atLeast('realized_pnl_usd', w.realizedPnlUsd, rule.min_realized_pnl_usd),
    ...atLeast('win_rate', w.winRate, rule.min_win_rate),
    ...atLeast('roi', w.roi, rule.min_roi),
  ]
  return { rule: rule.id, window: rule.window, passes: checks.every((c) => c.passes), checks }
}

/** Whether a top rule ranks this value: positive, and at least its min_value when set. */
export function isRanked(rule: TopRule, value: number | null): value is number {
  return value !== null && value > 0 && (rule.min_value === undefined || value >= rule.min_value)
}

/**
 * Why a wallet passes or fails a top rule, given its rank (1 = largest) among the wallets
 * it ranks (isRanked; null: not ranked).
 */
export function judgeTop(rule: TopRule, stats: WalletWindows, rank: number | null): RuleVerdict {
  const value = measureOf(stats.windows[rule.window], rule.measure)
  const floor: Pick<RuleCheck, 'operator' | 'required'> = rule.min_value === undefined ? { operator: '>', required: 0 } : { operator: '>=', required: rule.min_value }
  const checks: RuleCheck[] = [
    { measure: rule.measure, ...floor, value, passes: isRanked(rule, value) },
    { measure: `rank_by_${rule.measure}`, operator: '<=', required: rule.count, value: rank, passes: rank !== null && rank <= rule.count },
  ]
  return { rule: rule.id, window: rule.window, passes: checks.every((c) => c.passes), checks }
}

/** A rule in words, for GET /smart-money/rules. */
export function describeRule(rule: SmartMoneyRule): string {
  if (rule.kind === 'top') {
    return rule.min_value === undefined
      ? `The ${rule.count} wallets with the largest positive ${rule.measure} over ${rule.window}`
      : `The ${rule.count} wallets with the largest ${rule.measure} over ${rule.window}, of at least ${rule.min_value}`
  }
  const parts = [
    rule.min_trades !== undefined ? `at least ${rule.min_trades} trades` : null,
    rule.min_realized_pnl_usd !== undefined ? `realized PnL >= $${rule.min_realized_pnl_usd}` : null,
    rule.min_win_rate !== undefined ? `win rate >= ${rule.min_win_rate}` : null,
    rule.min_roi !== undefined ? `ROI >= ${rule.min_roi}` : null,
  ].filter((p) => p !== null)
  return `Over ${rule.window}: ${parts.length > 0 ? parts.join(', ') : 'every wallet'}`
}
