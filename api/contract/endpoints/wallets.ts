import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { pageHint, paginationSchema, resultEnvelope } from '../envelopes.js'
import { addressParam, boundedInteger, checkTimeRange, END_TIME_DESCRIPTION, pageQueryShape, START_TIME_DESCRIPTION, strictQuery, timeParam } from '../parameters.js'
import { holdingSchema, tokenRefSchema } from '../resources.js'

/** The views of one wallet and of a token's flows: beyond the interface. */

const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/)
const uint256 = z.string().regex(/^\d+$/)
const isoTime = z.iso.datetime({ precision: 3 })

/**
 * The longest window of flows: its whole hours are read from the stored token flows (one
 * range of the token's rows), only its partial first and last hours from the swaps.
 */
export const MAX_FLOW_WINDOW_MS = 30 * 86_400_000

export const DEFAULT_TOP_WALLETS = 10
export const MAX_TOP_WALLETS = 100

export const listWalletHoldings = defineEndpoint({
  path: '/wallets/:address/holdings',
  operationId: 'listWalletHoldings',
  tag: 'Wallets',
  summary: "One wallet's holdings, ordered as GET /holdings, with their USD total",
  description: 'A wallet with no holdings is an empty page (any address may be a wallet). With format=csv the total is in X-Total-Value-Usd.',
  params: z.object({ address: addressParam('address') }),
  query: strictQuery(pageQueryShape()),
  success: {
    description: 'A page of the wallet\'s holdings and a summary of all of them',
    schema: z.strictObject({
      status: z.literal('success'),
      result: z.array(holdingSchema),
      summary: z
        .strictObject({
          wallet_address: lowerAddress,
          total_value_usd: z.number().meta({ description: 'Sum of the value_usd known' }),
          holdings_without_value: z.int().meta({ description: 'Holdings whose value_usd is unknown (not in the total)' }),
        })
        .meta({ id: 'WalletHoldingsSummary' }),
      pagination: paginationSchema,
      message: pageHint,
    }),
    csv: true,
  },
  errors: { 400: 'A malformed address or parameter, or an unknown parameter' },
})

const topParam = boundedInteger('top', 1, MAX_TOP_WALLETS)
  .optional()
  .default(DEFAULT_TOP_WALLETS)
  .meta({ description: `Wallets listed in each direction, 1 to ${MAX_TOP_WALLETS}` })

const flowSide = z
  .strictObject({
    amount_raw: uint256,
    amount: z.number().nullable().meta({ description: 'amount_raw adjusted by the decimals; null while they are unknown' }),
    value_usd: z.number().meta({ description: 'Sum of value_usd of these swaps (those without one add nothing)' }),
    swaps: z.int(),
    wallets: z.int(),
  })
  .meta({ id: 'FlowSide' })

const walletFlow = z
  .strictObject({
    wallet_address: lowerAddress,
    net_value_usd: z.number(),
    bought_amount_raw: uint256,
    sold_amount_raw: uint256,
    bought_value_usd: z.number(),
    sold_value_usd: z.number(),
  })
  .meta({ id: 'WalletFlow' })

export const tokenFlowsSchema = z
  .strictObject({
    token: tokenRefSchema,
    start_time: isoTime,
    end_time: isoTime,
    swaps: z.int(),
    swaps_without_usd: z.int().meta({ description: 'Swaps without value_usd: in the counts and amounts, not in any USD figure' }),
    bought: flowSide,
    sold: flowSide,
    net: z.strictObject({
      amount_raw: z.string().regex(/^-?\d+$/).meta({ description: 'bought - sold, signed, every digit' }),
      amount: z.number().nullable(),
      value_usd: z.number(),
    }),
    top_buyers: z.array(walletFlow).meta({ description: 'Largest net USD bought first' }),
    top_sellers: z.array(walletFlow).meta({ description: 'Largest net USD sold first' }),
  })
  .meta({ id: 'TokenFlows' })

export const getTokenFlows = defineEndpoint({
  path: '/tokens/:contract_address/flows',
  operationId: 'getTokenFlows',
  tag: 'Tokens',
  summary: 'Smart-money net flow of a token over a window: bought and sold, wallets each way, top wallets by net USD',
  params: z.object({ contract_address: addressParam('contract_address') }),
  query: strictQuery({
    start_time: timeParam('start_time').meta({ description: START_TIME_DESCRIPTION }),
    end_time: timeParam('end_time').meta({ description: END_TIME_DESCRIPTION }),
    top: topParam,
  }).superRefine((query, ctx) => {
    checkTimeRange(query, ctx)
    if (query.end_time - query.start_time > MAX_FLOW_WINDOW_MS) {
      ctx.addIssue({
        code: 'custom',
        message: `the window (end_time - start_time) must be at most 30 days (${MAX_FLOW_WINDOW_MS} ms); ask for longer periods window by window`,
      })
    }
  }),
  success: { description: 'The flows of the window (at most 30 days)', schema: resultEnvelope(tokenFlowsSchema) },
  errors: { 400: 'A malformed, missing or unknown parameter', 404: 'No token with this contract address' },
})
