import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { WALLET_STATS_COLUMNS } from './stats-query.js'
import { windowStatsOf, type WalletStatsRow } from './stats-rows.js'
import { storeWalletStats } from './store-wallet-stats.js'
import type { WalletStats, WindowStats } from './wallet-stats.js'
import type { StatWindow } from './windows.js'

const SELECT_LIST = WALLET_STATS_COLUMNS.map((c) => (c === 'first_trade' || c === 'last_trade' ? `toString(${c}) AS ${c}` : c)).join(', ')

/** Every wallet's statistics as stored by the run computed at `computedAtMs` (sorted by wallet). */
export async function walletStatsOfRun(clickhouse: ClickHouseClient, tables: Tables, computedAtMs: number): Promise<WalletStats[]> {
  const rows = await queryRows<WalletStatsRow>(
    clickhouse,
    `SELECT ${SELECT_LIST} FROM ${tables.walletStats} FINAL WHERE computed_at = {computed_at: DateTime64(3, 'UTC')}`,
    { computed_at: dateTime64Param(computedAtMs) },
  )
  return walletStatsFromRows(rows)
}

/** Every wallet's statistics as of a time: a full computation (stored as a run), read back (sorted by wallet). */
export async function computeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number): Promise<WalletStats[]> {
  const run = await storeWalletStats(clickhouse, tables, asOfMs)
  return walletStatsOfRun(clickhouse, tables, run.computedAtMs)
}

/** Groups (wallet, window) rows into one WalletStats per wallet, sorted by wallet. */
export function walletStatsFromRows(rows: readonly WalletStatsRow[]): WalletStats[] {
  const byWallet = new Map<string, WalletStats>()
  for (const row of rows) {
    let stats = byWallet.get(row.wallet_address)
    if (!stats) {
      stats = {
        wallet: row.wallet_address,
        windows: {} as Record<StatWindow, WindowStats>,
        unrealizedPnlUsd: row.unrealized_pnl_usd,
        openPositions: Number(row.open_positions),
      }
      byWallet.set(row.wallet_address, stats)
    }
    stats.windows[row.window] = windowStatsOf(row)
  }
  return [...byWallet.values()].sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0))
}
