import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { positionsInsertSql, SOURCE_COLUMNS } from './positions-sql.js'
import { recordWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'
import { walletStatsInsertSql } from './stats-query.js'

export { latestWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

const parseTime = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`)

/** The latest ingested_at of the stored swaps: a run is due when it moved. */
export async function swapsIngestedUntil(clickhouse: ClickHouseClient, tables: Tables): Promise<number | null> {
  const [row] = await queryRows<{ until: string | null }>(
    clickhouse,
    `SELECT if(count() = 0, NULL, toString(max(ingested_at))) AS until FROM ${tables.swaps}`,
  )
  return row?.until ? parseTime(row.until) : null
}

/** Swaps folded per slice of the wallets in a full run: the fold's memory grows faster than its input, so a large store is folded a slice at a time. */
const SLICE_SWAPS = 1_000_000

async function storedSwaps(clickhouse: ClickHouseClient, tables: Tables): Promise<number> {
  const [row] = await queryRows<{ swaps: string }>(clickhouse, `SELECT count() AS swaps FROM ${tables.swaps}`)
  return Number(row?.swaps ?? 0)
}

/**
 * The full computation: every pair of every wallet folded from its first leg as of `asOfMs`
 * (positions-sql.ts), the wallets in slices by the hash of their address (one slice per
 * SLICE_SWAPS stored swaps); then every wallet's rows (stats-query.ts), and the run recorded;
 * readers use the latest run (latestWalletStatsRun). Its positions start a new generation:
 * incremental runs (incremental-run.ts) continue from them.
 */
export async function storeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number, computedAtMs = Date.now(), slices?: number): Promise<WalletStatsRun> {
  const started = Date.now()
  const until = await swapsIngestedUntil(clickhouse, tables)
  const swaps = `SELECT ${SOURCE_COLUMNS} FROM ${tables.swaps} FINAL WHERE timestamp <= {as_of: DateTime64(3, 'UTC')}`
  const sliceCount = slices ?? Math.max(1, Math.ceil((await storedSwaps(clickhouse, tables)) / SLICE_SWAPS))
  const query_params = { as_of: dateTime64Param(asOfMs), computed_at: dateTime64Param(computedAtMs), positions_since: dateTime64Param(computedAtMs), slices: sliceCount }
  const slice = `(${swaps} AND cityHash64(wallet_address) % {slices: UInt32} = {slice: UInt32})`
  for (let i = 0; i < sliceCount; i++) {
    await clickhouse.command({ query: positionsInsertSql(tables, slice, 'zero'), query_params: { ...query_params, slice: i } })
  }
  await clickhouse.command({ query: walletStatsInsertSql(tables, `(${swaps})`, false), query_params })
  return recordWalletStatsRun(clickhouse, tables, {
    computedAtMs,
    asOfMs,
    swapsIngestedUntilMs: until,
    kind: 'full',
    positionsSinceMs: computedAtMs,
    started,
  })
}
