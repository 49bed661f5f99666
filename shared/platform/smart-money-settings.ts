import { z } from 'zod'

/** The windows every wallet's statistics are computed over, ending at the computation's time. */
export const STAT_WINDOWS = ['30d', '90d', '180d', 'all'] as const
export type StatWindow = (typeof STAT_WINDOWS)[number]

/**
 * The smart-money settings' shape, declared below the domain so that config validates
 * them at start. The selection rules of the tracked set: configuration (SMART_MONEY_RULES, JSON), with the
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
