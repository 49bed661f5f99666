import { z } from 'zod'
import type { Redis } from '../platform/redis.js'
import { redisKey, StoreScopedKeySpaces } from '../platform/redis.js'

/**
 * The result the indicator engine caches in Redis and GET /technical-analysis serves
 * (section 2.6 of the interface). An indicator without enough candles is null.
 * Key: `${REDIS_PREFIX}:ta:${contract_address}` (lower case), value: this JSON.
 */
const nullableNumber = z.number().nullable()

export const technicalAnalysisSchema = z.object({
  pivotPoints: z
    .object({
      keyLevel: z.number(),
      Resistance1: z.number(),
      Support1: z.number(),
      Resistance2: z.number(),
      Support2: z.number(),
      dailyHigh: z.number(),
      dailyLow: z.number(),
      dailyClose: z.number(),
      volume24: z.number(),
    })
    .nullable(),
  ma50: nullableNumber,
  ma100: nullableNumber,
  ma200: nullableNumber,
  rsi: nullableNumber,
  macd: z.object({ macd: z.number(), signal: z.number(), histogram: z.number() }).nullable(),
  timestamp: z.string(),
  token: z.object({
    id: z.string(),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    decimals: z.number().int().nullable(),
    contractAddress: z.string(),
  }),
  /** Start (ms) of the last closed 4-hour candle the values were computed from. */
  candleTime: z.number(),
  /** How many closed candles the values were computed from. */
  candleCount: z.number().int(),
})

export type TechnicalAnalysis = z.infer<typeof technicalAnalysisSchema>

export function technicalAnalysisKey(prefix: string, contractAddress: string): string {
  return redisKey(prefix, StoreScopedKeySpaces.technicalAnalysis, contractAddress.toLowerCase())
}

/** A cached entry as stored (the JSON under technicalAnalysisKey); throws on a corrupt one. */
export function parseTechnicalAnalysis(raw: string): TechnicalAnalysis {
  return technicalAnalysisSchema.parse(JSON.parse(raw))
}

/** Returns null when nothing is cached; throws on a Redis failure or a corrupt entry. */
export async function readTechnicalAnalysis(
  redis: Redis,
  prefix: string,
  contractAddress: string,
): Promise<TechnicalAnalysis | null> {
  const raw = await redis.get(technicalAnalysisKey(prefix, contractAddress))
  return raw === null ? null : parseTechnicalAnalysis(raw)
}

export async function writeTechnicalAnalysis(redis: Redis, prefix: string, result: TechnicalAnalysis): Promise<void> {
  await redis.set(technicalAnalysisKey(prefix, result.token.contractAddress), JSON.stringify(result))
}
