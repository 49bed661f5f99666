import { z } from 'zod'
import type { WalletWindows, WindowStats } from './wallet-stats/wallet-stats.js'
import { STAT_WINDOWS, type StatWindow } from './wallet-stats/windows.js'

/**
 * The selection rules of the tracked set: configuration (SMART_MONEY_RULES, JSON), with the
 * defaults below, served as data by GET /smart-money/rules. A wallet passing a rule carries
 * its id as a label.
 *
 * - `threshold`: every set minimum holds over the window (win rate null = no reduced
 *   position = fails a minimum win rate).
 * - `top`: among the wallets with a positive value of the measure over the window (at least
 *   `min_value` when set), the `count` largest (ties broken by address).
 */
const ruleId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lower-case letters, digits and dashes')
const statWindow = z.enum(STAT_WINDOWS)

export const thresholdRuleSchema = z.strictObject({
  id: ruleId,
  kind: z.literal('threshold'),
  window: statWindow,
  min_trades: z.int().min(0).optional(),
  min_realized_pnl_usd: z.number().optional(),
  min_win_rate: z.number().min(0).max(1).optional(),
  min_roi: z.number().optional(),
})

export const RANKED_MEASURES = ['realized_pnl_usd', 'roi', 'volume_usd'] as const
export type RankedMeasure = (typeof RANKED_MEASURES)[number]

export const topRuleSchema = z.strictObject({
  id: ruleId,
  kind: z.literal('top'),
  window: statWindow,
  measure: z.enum(RANKED_MEASURES),
  count: z.int().min(1).max(10_000),
  // A cent keeps out the float residue a break-even trade can leave as "profit".
  min_value: z.number().positive().optional().meta({ description: 'The least value of the measure ranked (default: any positive value)' }),
})

export const smartMoneyRuleSchema = z.discriminatedUnion('kind', [thresholdRuleSchema, topRuleSchema])
export const smartMoneyRulesSchema = z
  .array(smartMoneyRuleSchema)
  .refine((rules) => new Set(rules.map((r) => r.id)).size === rules.length, 'rule ids must be unique')
  .refine((rules) => rules.every((r) => r.id !== 'listed'), '"listed" is the label of the configured wallets')

export type ThresholdRule = z.infer<typeof thresholdRuleSchema>
export type TopRule = z.infer<typeof topRuleSchema>
export type SmartMoneyRule = z.infer<typeof smartMoneyRuleSchema>

export const DEFAULT_SMART_MONEY_RULES: readonly SmartMoneyRule[] = [
  { id: 'smart-trader-90d', kind: 'threshold', window: '90d', min_trades: 20, min_realized_pnl_usd: 50_000, min_win_rate: 0.6 },
  { id: 'top-100-pnl-30d', kind: 'top', window: '30d', measure: 'realized_pnl_usd', count: 100, min_value: 0.01 },
]

/** The label of wallets listed in the tracked-wallets file. */
export const LISTED_LABEL = 'listed'

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
