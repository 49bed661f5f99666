import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Logger } from '../shared/platform/logger.js'
import type { Tables } from '../shared/storage/tables.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { anySwapChangesSince } from '../shared/smart-money/run-changes.js'
import { latestWalletStatsRun, storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { startPeriodic } from './periodic-task.js'

export interface WalletStatsRefresherDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
  /** How often to look; 0: never in the background. */
  intervalMs: number
  /** A run is due after this long even without new swaps (the windows end at the run's time); a full run after this long since the latest full one. */
  maxAgeMs: number
  clock?: () => number
}

/**
 * Keeps the stored wallet statistics current: on each tick, when a swap changed after the
 * latest run's feed position (shared/changes/change-feed.ts) or that run is older than
 * maxAgeMs, an incremental run (updateWalletStats: only the pairs the new swaps touch,
 * exact), or a full run (storeWalletStats) when the latest full run is older than maxAgeMs.
 * One run at a time; an error is logged and the next tick tries again.
 */
export function startWalletStatsRefresher(deps: WalletStatsRefresherDeps): { stop(): Promise<void> } {
  const clock = deps.clock ?? Date.now

  const tick = async () => {
    try {
      const latest = await latestWalletStatsRun(deps.clickhouse, deps.tables)
      const now = clock()
      const stale = latest === null || now - latest.computedAtMs >= deps.maxAgeMs
      if (!stale && !(await anySwapChangesSince(deps.clickhouse, deps.tables, latest.changesPosition))) return
      const fullDue = latest?.positionsSinceMs == null || now - latest.positionsSinceMs >= deps.maxAgeMs
      const onMergesNotHeld = (table: string, err: unknown) => deps.logger.warn('positions merged during the statistics run: the hold was refused', { table, err })
      const run = fullDue
        ? await storeWalletStats(deps.clickhouse, deps.tables, now, now, { onMergesNotHeld })
        : await updateWalletStats(deps.clickhouse, deps.tables, now, now, { onMergesNotHeld })
      deps.logger.info('wallet statistics computed', { kind: run.kind, wallets: run.wallets, durationMs: run.durationMs })
    } catch (err) {
      deps.logger.warn('wallet statistics refresh failed', { err })
    }
  }
  return startPeriodic(deps.intervalMs, tick)
}
