import { refreshCandles } from '../shared/candle-refresh.js'
import { candleStart } from '../shared/candles.js'
import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Logger } from '../shared/logger.js'
import { IndicatorJobNames } from '../shared/queues.js'
import type { Tables } from '../shared/tables.js'
import type { IndicatorQueue } from './indicator-queue.js'

export interface CandleRefresherDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  queue: IndicatorQueue
  logger: Logger
  intervalMs: number
  clock?: () => number
}

/** Above this many changed tokens, one recompute of every token is cheaper than one job each. */
const RECOMPUTE_ALL_ABOVE = 50

/**
 * Keeps the stored candles current in the background (shared/candle-refresh.ts) and,
 * when a refresh changed a closed 4-hour candle of a token, queues the recompute of that
 * token's indicators: results follow ingestion without waiting for the next boundary.
 * One refresh at a time; an error is logged and the next tick tries again.
 */
export function startCandleRefresher(deps: CandleRefresherDeps): { stop(): Promise<void> } {
  const clock = deps.clock ?? Date.now
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()

  const tick = async () => {
    try {
      const { earliestChange } = await refreshCandles(deps.clickhouse, deps.tables)
      const inProgress = candleStart(clock())
      const closedChanged = [...earliestChange].filter(([, from]) => from === null || candleStart(from) < inProgress)
      if (closedChanged.length > RECOMPUTE_ALL_ABOVE) {
        await deps.queue.add(IndicatorJobNames.recomputeAll, {}, { deduplication: { id: 'recompute-all-after-candles' } })
      } else {
        for (const [token] of closedChanged) {
          await deps.queue.add(
            IndicatorJobNames.recomputeToken,
            { contract_address: token },
            { deduplication: { id: `recompute-after-candles:${token}` } },
          )
        }
      }
      if (closedChanged.length > 0) deps.logger.debug('closed candles changed', { tokens: closedChanged.length })
    } catch (err) {
      deps.logger.warn('candle refresh failed', { err })
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      running = tick().finally(schedule)
    }, deps.intervalMs)
  }
  if (deps.intervalMs > 0) schedule()
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
