import { z } from 'zod'
import type { Candle, Holding, SwapTransaction, Token, TokenRef } from '../../shared/records/domain.js'
import { technicalAnalysisSchema } from '../../shared/candles/technical-analysis.js'

/**
 * The resources as the API serves them, for the OpenAPI document and for the tests that
 * hold real responses against it (strict objects: a field the document does not name
 * fails). The TypeScript types in shared/records/domain.ts are what the code builds; the checks at
 * the end of this file keep both in step.
 */

const lowerAddress = z.string().regex(/^0x[0-9a-f]{40}$/)
const isoTime = z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601 with milliseconds and Z' })
const uint256 = z.string().regex(/^\d+$/).meta({ description: 'uint256 as a decimal string, every digit kept' })

export const tokenSchema = z
  .strictObject({
    id: z.string().meta({ description: "The producer's id, or the lower-case contract address" }),
    name: z.string(),
    symbol: z.string(),
    decimals: z.int(),
    contract_address: lowerAddress,
  })
  .meta({ id: 'Token', description: 'Section 2.3 of the interface: exactly these fields.' })

export const tokenRefSchema = z
  .strictObject({
    id: z.string(),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    decimals: z.int().nullable(),
    contract_address: lowerAddress,
  })
  .meta({ id: 'TokenRef', description: 'A token as part of a holding or swap: name, symbol and decimals are null while its metadata is unknown.' })

export const holdingSchema = z
  .strictObject({
    id: z.string().meta({ description: '`<wallet address>-<token contract address>`, lower case' }),
    wallet_address: lowerAddress,
    token: tokenRefSchema,
    balance_raw: uint256,
    balance: z.number().nullable().meta({ description: 'balance_raw adjusted by the decimals; null while they are unknown' }),
    value_usd: z.number().nullable(),
    updated_at: isoTime,
  })
  .meta({ id: 'Holding' })

export const swapLegSchema = tokenRefSchema
  .extend({
    amount_raw: uint256,
    amount: z.number().nullable().meta({ description: 'amount_raw adjusted by the decimals; null while they are unknown' }),
  })
  .meta({ id: 'SwapLeg' })

export const swapSchema = z
  .strictObject({
    hash: z.string().regex(/^0x[0-9a-f]{64}$/),
    chain_id: z.int(),
    block_number: z.int(),
    timestamp: isoTime,
    timestamp_ms: z.int(),
    wallet_address: lowerAddress,
    token_sold: swapLegSchema,
    token_bought: swapLegSchema,
    value_usd: z.number().nullable(),
    dex: z.string().nullable(),
  })
  .meta({ id: 'SwapTransaction', description: "One record per transaction hash: the tracked wallet's net swap in that transaction." })

export const candleSchema = z
  .strictObject({
    time: z.int().meta({ description: 'Start of the candle, ms since the epoch (UTC aligned)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().meta({ description: 'USD volume of the tracked swaps' }),
  })
  .meta({ id: 'Candle', description: 'Prices and volume to 12 significant digits.' })

const { pivotPoints, macd, ma50, ma100, ma200, rsi } = technicalAnalysisSchema.shape

export const technicalAnalysisResultSchema = z
  .strictObject({
    pivotPoints: pivotPoints.meta({ id: 'PivotPoints' }),
    ma50,
    ma100,
    ma200,
    rsi,
    macd: macd.meta({ id: 'Macd' }),
    timestamp: isoTime.meta({ description: 'When the values were computed' }),
    token: z.strictObject({
      id: z.string(),
      name: z.string().nullable(),
      symbol: z.string().nullable(),
      decimals: z.int().nullable(),
      contractAddress: lowerAddress,
    }),
    candleTime: isoTime.meta({ description: 'Start of the last closed 4-hour candle the values come from' }),
    candleCount: z.int().meta({ description: 'How many closed candles the values come from' }),
  })
  .meta({ id: 'TechnicalAnalysis', description: 'Section 2.6 of the interface; an indicator without enough candles is null.' })

export const indicatorPointSchema = z
  .strictObject({
    candleTime: isoTime.meta({ description: 'Start of the 4-hour candle the values stand at' }),
    ma50,
    ma100,
    ma200,
    rsi,
    macd,
    pivotPoints,
  })
  .meta({ id: 'IndicatorPoint' })

// The served types and these schemas describe the same objects.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const agree: [
  Same<z.infer<typeof tokenSchema>, Token>,
  Same<z.infer<typeof tokenRefSchema>, TokenRef>,
  Same<z.infer<typeof holdingSchema>, Holding>,
  Same<z.infer<typeof swapSchema>, SwapTransaction>,
  Same<z.infer<typeof candleSchema>, Candle>,
] = [true, true, true, true, true]
void agree
