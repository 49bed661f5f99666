import type { Logger } from '../shared/platform/logger.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { refreshTokenFlows } from '../shared/token-flows/token-flows-refresh.js'

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
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()

  const tick = async () => {
    try {
      const { rebuilt } = await refreshTokenFlows(deps.clickhouse, deps.tables)
      if (rebuilt) deps.logger.info('token flows rebuilt from the swaps')
    } catch (err) {
      deps.logger.warn('token flows refresh failed', { err })
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
