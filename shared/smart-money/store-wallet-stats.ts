import type { ClickHouseClient } from '../storage/clickhouse.js'
import { feedPosition } from '../changes/change-feed.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import type { Tables } from '../storage/tables.js'
import { storeMarks } from './marks.js'
import { stepTimer } from './run-steps.js'
import { runWrite } from './run-write.js'
import { positionsInsertSql, SOURCE_COLUMNS } from './positions-sql.js'
import { walletStatsInsertSql } from './stats-query.js'
import { withMergesHeld, type HoldRefused } from './held-merges.js'
import { walletSlices, type Slicing } from './wallet-slices.js'
import { recordWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

export { latestWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

export interface FullRunOptions {
  slicing?: Slicing
  /** Told each step's duration (the benchmark prints them). */
  onStep?: (step: string, ms: number) => void
  /** Told when the server refused to hold a table's merges during the run (held-merges.ts). */
  onMergesNotHeld?: HoldRefused
}

/**
 * A slice's wallets grouped in the wallet path's order (its sorting key starts with the
 * wallet), so its positions come out in the positions' key order (wallet, then token) and
 * the insert need not sort them: a full run's slices took about a quarter less on the
 * benchmark's 10M store, the positions written the same.
 */
const IN_WALLET_ORDER = { optimize_aggregation_in_order: 1 } as const

/**
 * The full computation: every pair of every wallet folded from its first leg as of `asOfMs`
 * (positions-sql.ts), the wallets in slices (walletSlices), each slice read from its own range
 * of the wallet path, the positions' merges held until the run's rows are written (held-merges.ts);
 * then every wallet's rows from its sums (stats-query.ts), and the run recorded; readers
 * use the latest run (latestWalletStatsRun). Its positions start a new generation: incremental
 * runs (incremental-run.ts) continue from them. The swaps are the wallet path's live rows, as
 * the wallet's own pages list them.
 */
export async function storeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number, computedAtMs = Date.now(), options: FullRunOptions = {}): Promise<WalletStatsRun> {
  const started = Date.now()
  const step = stepTimer(options.onStep, started)
  // Before the swaps are read: the next run takes the changes after it (incremental-run.ts).
  const changesPosition = await feedPosition(clickhouse, tables)
  const swaps = `SELECT ${SOURCE_COLUMNS} FROM ${tables.swapsByWallet} FINAL WHERE timestamp <= {as_of: DateTime64(3, 'UTC')}`
  const query_params = { as_of: dateTime64Param(asOfMs), computed_at: dateTime64Param(computedAtMs), positions_since: dateTime64Param(computedAtMs) }
  const slices = await walletSlices(clickhouse, tables, options.slicing)
  step('slices')
  await withMergesHeld(clickhouse, [tables.walletPositions], async () => {
    for (const slice of slices) {
      await runWrite(clickhouse, positionsInsertSql(tables, `(${swaps} AND ${slice.condition})`, 'zero'), { ...query_params, ...slice.params }, IN_WALLET_ORDER)
    }
    step(`positions (${slices.length} slices)`)
    await storeMarks(clickhouse, tables, query_params, 'full')
    step('marks')
    await runWrite(clickhouse, walletStatsInsertSql(tables, false), query_params)
    step('wallet rows')
  }, options.onMergesNotHeld)
  return recordWalletStatsRun(clickhouse, tables, {
    computedAtMs,
    asOfMs,
    changesPosition,
    kind: 'full',
    positionsSinceMs: computedAtMs,
    started,
  })
}
