import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { storeMarks } from './marks.js'
import { stepTimer } from './run-steps.js'
import { runWrite } from './run-write.js'
import { positionsInsertSql, SOURCE_COLUMNS } from './positions-sql.js'
import { walletStatsInsertSql } from './stats-query.js'
import { withMergesHeld, type HoldRefused } from './held-merges.js'
import { walletSlices, type Slicing } from './wallet-slices.js'
import { recordWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

export { latestWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

const parseTime = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`)

/**
 * The latest ingested_at of the stored swaps: a run is due when it moved. With `sinceMs` (a
 * previous answer), only the rows from then on are looked at (the ingested_at index skips the
 * rest): null when there are none.
 */
export async function swapsIngestedUntil(clickhouse: ClickHouseClient, tables: Tables, sinceMs: number | null = null): Promise<number | null> {
  const [row] = await queryRows<{ until: string | null }>(
    clickhouse,
    `SELECT if(count() = 0, NULL, toString(max(ingested_at))) AS until FROM ${tables.swaps}
     ${sinceMs === null ? '' : "WHERE ingested_at >= {since: DateTime64(3, 'UTC')}"}`,
    sinceMs === null ? {} : { since: dateTime64Param(sinceMs) },
  )
  return row?.until ? parseTime(row.until) : null
}

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
 * the insert need not sort them. On the benchmark's 10M store, alternated on fresh copies:
 * the six slices took 18.7–21.8 s against 25.1–34.3 s (five pairs); the positions written were the same.
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
  const until = await swapsIngestedUntil(clickhouse, tables)
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
    swapsIngestedUntilMs: until,
    kind: 'full',
    positionsSinceMs: computedAtMs,
    started,
  })
}
