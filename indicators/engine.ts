import { performance } from 'node:perf_hooks'
import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Logger } from '../shared/logger.js'
import type { IndicatorJobResult } from '../shared/queues.js'
import type { Redis } from '../shared/redis.js'
import type { Tables } from '../shared/tables.js'
import { technicalAnalysisKey } from '../shared/technical-analysis.js'
import { forEachClosedSeries, type TokenSeries } from './candle-series.js'
import { computeTechnicalAnalysis, type TokenMeta } from './compute-indicators.js'
import { RecomputeLocks } from './recompute-lock.js'
import { bareTokenMeta, readTokenMetadata } from './token-metadata.js'

export interface EngineDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  /** A request/response connection for the cache and the locks. */
  redis: Redis
  redisPrefix: string
  logger: Logger
}

export interface EngineOptions {
  /** Tokens computed and written per Redis round trip. */
  batchSize?: number
  /** Queries a full recompute is split into (by address range), overlapping ClickHouse and JavaScript. */
  slices?: number
  lockTtlMs?: number
  /** How long recompute-token waits for another process recomputing the same token. */
  lockWaitMs?: number
}

export interface RecomputeAllResult {
  /** Tokens with closed candles. */
  tokens: number
  written: number
  /** Tokens another process was recomputing at that moment (it writes them). */
  skipped: number
  /** Time spent in the indicator math alone. */
  mathMs: number
}

export const NO_CANDLES_REASON = 'the token has no closed 4-hour candles yet'

/**
 * Recomputes cached indicator results: every token with closed candles, or one token.
 * Candles come from one ClickHouse query; results go to Redis in pipelined batches,
 * each token under its recompute lock.
 */
export class IndicatorEngine {
  private readonly locks: RecomputeLocks
  private readonly batchSize: number
  private readonly slices: number | undefined
  private readonly lockWaitMs: number

  constructor(
    private readonly deps: EngineDeps,
    options: EngineOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500
    this.slices = options.slices
    this.lockWaitMs = options.lockWaitMs ?? 30_000
    this.locks = new RecomputeLocks(deps.redis, deps.redisPrefix, options.lockTtlMs ?? 60_000)
  }

  async recomputeAll(now: number = Date.now()): Promise<RecomputeAllResult> {
    const { clickhouse, tables } = this.deps
    const metadata = await readTokenMetadata(clickhouse, tables)
    const totals: RecomputeAllResult = { tokens: 0, written: 0, skipped: 0, mathMs: 0 }
    await forEachClosedSeries(clickhouse, tables, { now, slices: this.slices }, async (slice) => {
      for (let i = 0; i < slice.length; i += this.batchSize) {
        const batch = slice.slice(i, i + this.batchSize)
        totals.tokens += batch.length
        const held = new Set(await this.locks.acquireMany(batch.map((s) => s.contractAddress)))
        try {
          const mine = batch.filter((s) => held.has(s.contractAddress))
          totals.skipped += batch.length - mine.length
          const { written, mathMs } = await this.computeAndWrite(mine, metadata, now)
          totals.written += written
          totals.mathMs += mathMs
        } finally {
          await this.locks.release([...held])
        }
      }
    })
    return totals
  }

  async recomputeToken(contractAddress: string, now: number = Date.now()): Promise<IndicatorJobResult> {
    const { clickhouse, tables } = this.deps
    const address = contractAddress.toLowerCase()
    if (!(await this.locks.acquire(address, this.lockWaitMs))) {
      throw new Error(`another recompute of ${address} held its lock for more than ${this.lockWaitMs} ms`)
    }
    try {
      const metadata = await readTokenMetadata(clickhouse, tables, [address])
      let written = 0
      await forEachClosedSeries(clickhouse, tables, { now, token: address }, async (batch) => {
        written += (await this.computeAndWrite(batch, metadata, now)).written
      })
      return written > 0 ? { written } : { written: 0, reason: NO_CANDLES_REASON }
    } finally {
      await this.locks.release([address])
    }
  }

  private async computeAndWrite(
    batch: TokenSeries[],
    metadata: Map<string, TokenMeta>,
    now: number,
  ): Promise<{ written: number; mathMs: number }> {
    if (batch.length === 0) return { written: 0, mathMs: 0 }
    const computedAt = new Date(now)
    const pipeline = this.deps.redis.pipeline()
    let mathMs = 0
    for (const series of batch) {
      const token = metadata.get(series.contractAddress) ?? bareTokenMeta(series.contractAddress)
      const started = performance.now()
      const result = computeTechnicalAnalysis(series, token, computedAt)
      mathMs += performance.now() - started
      pipeline.set(technicalAnalysisKey(this.deps.redisPrefix, series.contractAddress), JSON.stringify(result))
    }
    const replies = (await pipeline.exec()) ?? []
    for (const [err] of replies) if (err) throw err
    return { written: batch.length, mathMs }
  }
}
