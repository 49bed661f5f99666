import { z } from 'zod'
import { thresholdRuleSchema, topRuleSchema } from '../../../shared/platform/smart-money-settings.js'
import { STAT_WINDOWS } from '../../../shared/platform/smart-money-settings.js'
import { defineEndpoint } from '../endpoint.js'
import { paginationSchema, resultEnvelope } from '../envelopes.js'
import { addressParam, limitParam, offsetParam, strictQuery } from '../parameters.js'

/** Who is smart money (beyond the interface): the tracked wallets, any wallet's statistics, the rules. */

const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/)
const isoTime = z.iso.datetime({ precision: 3 })

export const WALLET_SORTS = ['pnl', 'roi', 'win_rate', 'volume', 'last_trade'] as const
export type WalletSort = (typeof WALLET_SORTS)[number]

const windowStatsSchema = z
  .strictObject({
    trades: z.int(),
    trades_without_usd: z.int().meta({ description: 'Trades without value_usd: counted in trades, in no USD figure' }),
    volume_usd: z.number().meta({ description: 'Sum of value_usd of the trades (each swap once)' }),
    realized_pnl_usd: z.number().meta({ description: 'Proceeds less weighted average cost of what the sells removed' }),
    closed_cost_usd: z.number().meta({ description: 'Cost basis of the quantity sold' }),
    matched_proceeds_usd: z.number(),
    unmatched_proceeds_usd: z.number().meta({ description: 'Proceeds of quantity never recorded as bought: no cost basis, no PnL' }),
    roi: z.number().nullable().meta({ description: 'realized_pnl_usd / closed_cost_usd; null when nothing with a cost basis was sold' }),
    positions_reduced: z.int().meta({ description: 'Sells that closed or reduced a position with a cost basis' }),
    positions_won: z.int(),
    win_rate: z.number().nullable().meta({ description: 'positions_won / positions_reduced; null when none' }),
    tokens_traded: z.int(),
    first_trade: isoTime.nullable(),
    last_trade: isoTime.nullable(),
  })
  .meta({ id: 'WalletWindowStats' })

const ruleCheckSchema = z
  .strictObject({
    measure: z.string(),
    operator: z.enum(['>=', '<=', '>']),
    required: z.number(),
    value: z.number().nullable(),
    passes: z.boolean(),
  })
  .meta({ id: 'RuleCheck' })

const ruleVerdictSchema = z
  .strictObject({ rule: z.string(), window: z.enum(STAT_WINDOWS), passes: z.boolean(), checks: z.array(ruleCheckSchema) })
  .meta({ id: 'RuleVerdict' })

const UNREALIZED =
  "Open positions at their token's latest swap price, less their cost: the positions as last stored, valued the first time the wallet is shown after each statistics run"

const trackedWalletSchema = z
  .strictObject({
    wallet_address: lowerAddress,
    name: z.string().nullable().meta({ description: 'From the tracked-wallets file' }),
    labels: z.array(z.string()).meta({ description: '"listed" (in the tracked-wallets file) and the ids of the rules it passes' }),
    evidence: z.array(ruleVerdictSchema).meta({ description: 'For each label from a rule: the statistics behind it' }),
    stats: windowStatsSchema.nullable().meta({ description: 'Over the requested window; null before the first computation' }),
    unrealized_pnl_usd: z.number().nullable().meta({ description: `${UNREALIZED}; null before the first computation` }),
  })
  .meta({ id: 'TrackedWallet' })

const windowParam = z.enum(STAT_WINDOWS).optional().default('90d').meta({ description: 'The window of the statistics shown and sorted by' })

export const listTrackedWallets = defineEndpoint({
  path: '/wallets',
  operationId: 'listTrackedWallets',
  tag: 'Smart money',
  summary: 'The tracked wallets: listed in configuration or passing a selection rule, with their labels and the statistics behind them',
  description:
    'Sorted by the statistic `sort` over `window` (nulls last, then by address). `label` keeps the wallets carrying it ("listed" or a configured rule id; any other label is a 400 naming the labels).',
  query: strictQuery({
    sort: z.enum(WALLET_SORTS).optional().default('pnl'),
    order: z.enum(['desc', 'asc']).optional().default('desc'),
    window: windowParam,
    label: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/).optional().meta({ description: '"listed" or the id of a configured rule (GET /smart-money/rules)' }),
    limit: limitParam(),
    offset: offsetParam,
  }),
  success: {
    description: 'A page of the tracked wallets',
    schema: z.strictObject({
      status: z.literal('success'),
      result: z.array(trackedWalletSchema),
      summary: z
        .strictObject({ window: z.enum(STAT_WINDOWS), computed_at: isoTime.nullable().meta({ description: 'When the statistics were computed (their windows end then). A new computation is served once the API has read it, a few seconds after it is recorded' }) })
        .meta({ id: 'TrackedWalletsSummary' }),
      pagination: paginationSchema,
    }),
  },
  errors: { 400: 'A malformed or unknown parameter' },
})

const walletProfileSchema = z
  .strictObject({
    wallet_address: lowerAddress,
    name: z.string().nullable(),
    labels: z.array(z.string()),
    computed_at: isoTime.nullable(),
    windows: z.strictObject(Object.fromEntries(STAT_WINDOWS.map((w) => [w, windowStatsSchema])) as Record<(typeof STAT_WINDOWS)[number], typeof windowStatsSchema>),
    unrealized_pnl_usd: z.number().meta({ description: UNREALIZED }),
    open_positions: z.int(),
    rules: z.array(ruleVerdictSchema).meta({ description: 'Every rule, and why the wallet passes or fails it' }),
  })
  .meta({ id: 'WalletProfile' })

export const getWalletProfile = defineEndpoint({
  path: '/wallets/:address',
  operationId: 'getWalletProfile',
  tag: 'Smart money',
  summary: "Any wallet's statistics per window (30d, 90d, 180d, all), its labels, and why it passes or fails each rule",
  description: 'A wallet without swaps has zero statistics (any address may be a wallet).',
  params: z.object({ address: addressParam('address') }),
  query: strictQuery({}),
  success: { description: "The wallet's statistics", schema: resultEnvelope(walletProfileSchema) },
  errors: { 400: 'A malformed address or an unknown parameter' },
})

const servedRuleSchema = z.union([
  thresholdRuleSchema.extend({ description: z.string() }).meta({ id: 'ThresholdRule' }),
  topRuleSchema.extend({ description: z.string() }).meta({ id: 'TopRule' }),
])

export const getSmartMoneyRules = defineEndpoint({
  path: '/smart-money/rules',
  operationId: 'getSmartMoneyRules',
  tag: 'Smart money',
  summary: 'The selection rules of the tracked set, the tracked-wallets file and the latest computation of the statistics',
  query: strictQuery({}),
  success: {
    description: 'The rules in force',
    schema: resultEnvelope(
      z
        .strictObject({
          rules: z.array(servedRuleSchema),
          tracked_wallets_file: z.strictObject({
            configured: z.boolean(),
            wallets: z.int(),
            problems: z.array(z.strictObject({ line: z.int(), reason: z.string() })).meta({ description: 'Lines skipped, with why' }),
          }),
          statistics: z.strictObject({
            computed_at: isoTime.nullable(),
            wallets: z.int(),
            duration_ms: z.int().nullable(),
          }),
        })
        .meta({ id: 'SmartMoneyRules' }),
    ),
  },
  errors: { 400: 'An unknown parameter' },
})
