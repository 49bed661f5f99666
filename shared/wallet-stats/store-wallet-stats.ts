import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { WALLET_STATS_COLUMNS, walletStatsSelect } from './stats-query.js'

export interface WalletStatsRun {
  computedAtMs: number
  asOfMs: number
  /** The latest ingested_at of the swaps when the run started (null: no swaps). */
  swapsIngestedUntilMs: number | null
  wallets: number
  durationMs: number
}

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
 * Computes every wallet's statistics as of `asOfMs` in one INSERT ... SELECT and records the
 * run; readers use the latest run (latestWalletStatsRun). A full computation: the windows end
 * at the run's time, so every wallet's figures move with the clock even without new swaps.
 */
export async function storeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number, computedAtMs = Date.now()): Promise<WalletStatsRun> {
  const started = Date.now()
  const until = await swapsIngestedUntil(clickhouse, tables)
  const columns = WALLET_STATS_COLUMNS.join(', ')
  await clickhouse.command({
    query: `INSERT INTO ${tables.walletStats} (${columns}, computed_at)
      SELECT ${columns}, {computed_at: DateTime64(3, 'UTC')} FROM (${walletStatsSelect(tables)})`,
    query_params: { as_of: dateTime64Param(asOfMs), computed_at: dateTime64Param(computedAtMs) },
  })
  const [count] = await queryRows<{ wallets: string }>(
    clickhouse,
    `SELECT count() AS wallets FROM ${tables.walletStats} WHERE computed_at = {computed_at: DateTime64(3, 'UTC')} AND window = 'all'`,
    { computed_at: dateTime64Param(computedAtMs) },
  )
  const run: WalletStatsRun = {
    computedAtMs,
    asOfMs,
    swapsIngestedUntilMs: until,
    wallets: Number(count?.wallets ?? 0),
    durationMs: Date.now() - started,
  }
  await clickhouse.insert({
    table: tables.walletStatsRuns,
    values: [
      {
        computed_at: dateTime64Param(run.computedAtMs),
        as_of: dateTime64Param(run.asOfMs),
        swaps_ingested_until: run.swapsIngestedUntilMs === null ? null : dateTime64Param(run.swapsIngestedUntilMs),
        wallets: run.wallets,
        duration_ms: run.durationMs,
      },
    ],
    format: 'JSONEachRow',
  })
  return run
}

/** The latest completed run, or null before the first. */
export async function latestWalletStatsRun(clickhouse: ClickHouseClient, tables: Tables): Promise<WalletStatsRun | null> {
  const [row] = await queryRows<{ computed_at: string; as_of: string; swaps_ingested_until: string | null; wallets: string; duration_ms: string }>(
    clickhouse,
    `SELECT toString(computed_at) AS computed_at, toString(as_of) AS as_of, toString(swaps_ingested_until) AS swaps_ingested_until, wallets, duration_ms
     FROM ${tables.walletStatsRuns} ORDER BY computed_at DESC LIMIT 1`,
  )
  if (!row) return null
  return {
    computedAtMs: parseTime(row.computed_at),
    asOfMs: parseTime(row.as_of),
    swapsIngestedUntilMs: row.swaps_ingested_until ? parseTime(row.swaps_ingested_until) : null,
    wallets: Number(row.wallets),
    durationMs: Number(row.duration_ms),
  }
}
