import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { storeMarks } from './marks.js'
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

/**
 * How a full run cuts the wallets into slices: about `swaps` swaps per slice (the fold's
 * memory grows faster than its input, so a large store is folded a slice at a time), the
 * cuts placed by a sample of one stored swap in `sampleEvery`.
 */
export interface Slicing {
  swaps: number
  sampleEvery: number
}

const SLICING: Slicing = { swaps: 1_000_000, sampleEvery: 1_024 }

/**
 * Where the slices of a full run start: wallet addresses cutting the wallet path (ordered
 * by wallet) into ranges of about `slicing.swaps` swaps each, from a sample of its rows, so that
 * each slice reads only its own range. None for a store of one slice.
 */
export async function sliceStarts(clickhouse: ClickHouseClient, tables: Tables, slicing: Slicing = SLICING): Promise<string[]> {
  const sample = await queryRows<{ wallet_address: string }>(
    clickhouse,
    `SELECT wallet_address FROM ${tables.swapsByWallet} WHERE cityHash64(wallet_address, timestamp, hash) % {every: UInt32} = 0 ORDER BY wallet_address`,
    { every: slicing.sampleEvery },
  )
  const perSlice = Math.max(1, Math.round(slicing.swaps / slicing.sampleEvery))
  const starts: string[] = []
  for (let i = perSlice; i < sample.length; i += perSlice) {
    const start = sample[i]!.wallet_address
    if (start !== starts.at(-1) && start !== sample[0]!.wallet_address) starts.push(start)
  }
  return starts
}

export interface FullRunOptions {
  slicing?: Slicing
  /** Told each step's duration (the benchmark prints them). */
  onStep?: (step: string, ms: number) => void
}

/** Calls onStep with the time since the previous step (or `started`). */
export function stepTimer(onStep: ((step: string, ms: number) => void) | undefined, started: number): (name: string) => void {
  let previous = started
  return (name) => {
    const now = Date.now()
    onStep?.(name, now - previous)
    previous = now
  }
}

/** A slice of the wallets: a condition on wallet_address and its parameters. */
export interface WalletSlice {
  condition: string
  params: { lower?: string; upper?: string }
}

/** The slices of a full run: from each start up to the next (sliceStarts), the first from the lowest address, the last to the highest. */
export async function walletSlices(clickhouse: ClickHouseClient, tables: Tables, slicing: Slicing = SLICING): Promise<WalletSlice[]> {
  const starts = await sliceStarts(clickhouse, tables, slicing)
  return Array.from({ length: starts.length + 1 }, (_, i) => {
    const lower = i > 0 ? 'wallet_address >= {lower: String}' : null
    const upper = i < starts.length ? 'wallet_address < {upper: String}' : null
    return { condition: [lower, upper].filter((c) => c !== null).join(' AND ') || '1', params: { lower: starts[i - 1], upper: starts[i] } }
  })
}

/**
 * The full computation: every pair of every wallet folded from its first leg as of `asOfMs`
 * (positions-sql.ts), the wallets in slices (walletSlices), each slice read from its own range
 * of the wallet path; then every wallet's rows (stats-query.ts), and the run recorded; readers
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
  for (const slice of slices) {
    await clickhouse.command({
      query: positionsInsertSql(tables, `(${swaps} AND ${slice.condition})`, 'zero'),
      query_params: { ...query_params, ...slice.params },
      clickhouse_settings: { optimize_on_insert: 0 },
    })
  }
  step(`positions (${slices.length} slices)`)
  await storeMarks(clickhouse, tables, query_params, 'full')
  step('marks')
  await clickhouse.command({ query: walletStatsInsertSql(tables, `(${swaps})`, false), query_params })
  step('wallet rows')
  return recordWalletStatsRun(clickhouse, tables, {
    computedAtMs,
    asOfMs,
    swapsIngestedUntilMs: until,
    kind: 'full',
    positionsSinceMs: computedAtMs,
    started,
  })
}
