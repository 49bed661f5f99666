import type { Logger } from '../shared/platform/logger.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { refreshTokenFlows } from '../shared/token-flows/token-flows-refresh.js'
import { startPeriodic } from './periodic-task.js'

export interface TokenFlowsRefresherDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
  /** 0: never. */
  intervalMs: number
}

/**
 * Keeps the stored token flows current in the background (shared/token-flows/token-flows-refresh.ts),
 * so that a read, which first catches up with the feed itself, finds little left to do.
 * One refresh at a time; an error is logged and the next tick tries again.
 */
export function startTokenFlowsRefresher(deps: TokenFlowsRefresherDeps): { stop(): Promise<void> } {

  const tick = async () => {
    try {
      const { rebuilt } = await refreshTokenFlows(deps.clickhouse, deps.tables)
      if (rebuilt) deps.logger.info('token flows rebuilt from the swaps')
    } catch (err) {
      deps.logger.warn('token flows refresh failed', { err })
    }
  }
  return startPeriodic(deps.intervalMs, tick)
}
