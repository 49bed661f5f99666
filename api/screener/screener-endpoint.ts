import { z } from 'zod'
import { defineEndpoint } from '../contract/endpoint.js'
import { paginationSchema } from '../contract/envelopes.js'
import { limitParam, offsetParam, strictQuery } from '../contract/parameters.js'
import { tokenRefSchema } from '../contract/resources.js'

export const SCREENER_WINDOWS = ['1h', '24h', '7d', '30d'] as const
export type ScreenerWindow = (typeof SCREENER_WINDOWS)[number]

/** How many hours each window reaches back before the current one. */
export const WINDOW_HOURS: Readonly<Record<ScreenerWindow, number>> = { '1h': 1, '24h': 24, '7d': 168, '30d': 720 }

export const SCREENER_SORTS = ['net_flow', 'buyers', 'volume'] as const
export type ScreenerSort = (typeof SCREENER_SORTS)[number]

/** Wallets shown with each token. */
export const TOP_WALLETS = 3

const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/)
const isoTime = z.iso.datetime({ precision: 3 })

const screenedWalletSchema = z
  .strictObject({
    wallet_address: lowerAddress,
    name: z.string().nullable().meta({ description: 'From the tracked-wallets file' }),
    labels: z.array(z.string()).meta({ description: 'As GET /wallets gives them: "listed" and the ids of the rules it passes' }),
    net_value_usd: z.number(),
    bought_value_usd: z.number(),
    sold_value_usd: z.number(),
  })
  .meta({ id: 'ScreenedWallet' })

const screenedTokenSchema = z
  .strictObject({
    token: tokenRefSchema,
    bought_value_usd: z.number().meta({ description: 'Sum of value_usd of the tracked wallets\' swaps buying the token' }),
    sold_value_usd: z.number().meta({ description: 'Sum of value_usd of those selling it' }),
    net_flow_usd: z.number().meta({ description: 'bought_value_usd - sold_value_usd' }),
    volume_usd: z.number().meta({ description: 'bought_value_usd + sold_value_usd' }),
    buyers: z.int().meta({ description: 'Tracked wallets that bought the token in the window' }),
    sellers: z.int().meta({ description: 'Tracked wallets that sold it' }),
    swaps: z.int(),
    swaps_without_usd: z.int().meta({ description: 'Swaps without value_usd: in the counts, in no USD figure' }),
    top_wallets: z.array(screenedWalletSchema).meta({ description: `The ${TOP_WALLETS} wallets with the largest net_value_usd, then by address` }),
  })
  .meta({ id: 'ScreenedToken' })

export const listSmartMoneyTokens = defineEndpoint({
  path: '/smart-money/tokens',
  operationId: 'listSmartMoneyTokens',
  tag: 'Smart money',
  summary: 'Where the tracked wallets\' money flows: per token, what they bought and sold over a window, how many of them, and the top wallets',
  description:
    'The tracked wallets are those of GET /wallets. The window ends with the current hour and starts `window` hours before it, in whole hours (1h: the previous and the current hour). ' +
    'Sorted by `sort`, largest first, then by contract address. Kept until a swap is stored or the hour turns.',
  query: strictQuery({
    window: z.enum(SCREENER_WINDOWS).optional().default('24h'),
    sort: z.enum(SCREENER_SORTS).optional().default('net_flow').meta({ description: 'net_flow (net_flow_usd), buyers, or volume (volume_usd)' }),
    limit: limitParam(),
    offset: offsetParam,
  }),
  success: {
    description: 'A page of the tokens the tracked wallets swapped in the window',
    schema: z.strictObject({
      status: z.literal('success'),
      result: z.array(screenedTokenSchema),
      summary: z
        .strictObject({
          window: z.enum(SCREENER_WINDOWS),
          sort: z.enum(SCREENER_SORTS),
          start_time: isoTime.meta({ description: 'The window\'s first instant: the start of an hour' }),
          end_time: isoTime.meta({ description: 'Its last instant, inclusive: the end of the current hour' }),
          tracked_wallets: z.int().meta({ description: 'How many wallets are tracked' }),
        })
        .meta({ id: 'SmartMoneyTokensSummary' }),
      pagination: paginationSchema,
    }),
  },
  errors: { 400: 'A malformed or unknown parameter' },
})
