import { createHash } from 'node:crypto'
import { refreshCandles } from '../shared/candles/candle-refresh.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Logger } from '../shared/platform/logger.js'
import { IndicatorJobNames } from '../shared/platform/queues.js'
import type { Tables } from '../shared/storage/tables.js'
import { closedChanges } from './engine.js'
import type { IndicatorQueue } from './indicator-queue.js'
import { startPeriodic } from './periodic-task.js'

export interface CandleRefresherDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  queue: IndicatorQueue
  logger: Logger
  intervalMs: number
  clock?: () => number
}

/** Tokens per recompute-tokens job. */
const TOKENS_PER_JOB = 500

/**
 * Keeps the stored candles current in the background (shared/candles/candle-refresh.ts) and,
 * when a refresh changed a closed 4-hour candle of some tokens, queues their recompute
 * from stored candles (recompute-tokens, in jobs of 500): results follow ingestion
 * without waiting for the next boundary, and the carried states are rebuilt.
 * One refresh at a time; an error is logged and the next tick tries again.
 */
export function startCandleRefresher(deps: CandleRefresherDeps): { stop(): Promise<void> } {
  const clock = deps.clock ?? Date.now

  const tick = async () => {
    try {
      const closedChanged = closedChanges(await refreshCandles(deps.clickhouse, deps.tables), clock())
      for (let i = 0; i < closedChanged.length; i += TOKENS_PER_JOB) {
        const changes = closedChanged.slice(i, i + TOKENS_PER_JOB)
        // A refresh reads its last seconds of marks again, so the same changes come back for a
        // few ticks: one waiting job takes them all (the worker drops the key when it starts,
        // so changes seen after that queue a job of their own).
        const id = createHash('sha1').update(JSON.stringify(changes)).digest('hex')
        await deps.queue.add(IndicatorJobNames.recomputeTokens, { changes }, { deduplication: { id: `recompute-tokens:${id}` } })
      }
      if (closedChanged.length > 0) deps.logger.debug('closed candles changed', { tokens: closedChanged.length })
    } catch (err) {
      deps.logger.warn('candle refresh failed', { err })
    }
  }
  return startPeriodic(deps.intervalMs, tick)
}
