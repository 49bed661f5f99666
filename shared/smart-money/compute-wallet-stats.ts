import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { RUN_ROW_SELECT_LIST, runRowsSql } from './stats-query.js'
import { windowStatsOf, type WalletStatsRow } from './stats-rows.js'
import { openPositionsOf } from './open-positions.js'
import { storeWalletStats, type WalletStatsRun } from './store-wallet-stats.js'
import { NO_OPEN_POSITIONS, type WalletStats, type WalletWindows, type WindowStats } from './wallet-stats.js'
import type { StatWindow } from '../platform/smart-money-settings.js'

/** Every wallet's statistics as stored by a run, with its open positions valued now (sorted by wallet). */
export async function walletStatsOfRun(clickhouse: ClickHouseClient, tables: Tables, run: WalletStatsRun): Promise<WalletStats[]> {
  const rows = await queryRows<WalletStatsRow>(
    clickhouse,
    `SELECT ${RUN_ROW_SELECT_LIST} FROM ${runRowsSql(tables)}`,
    { computed_at: dateTime64Param(run.computedAtMs) },
  )
  const open = await openPositionsOf(clickhouse, tables, run, null)
  return walletWindowsFromRows(rows).map((w) => ({ ...w, ...(open.get(w.wallet) ?? NO_OPEN_POSITIONS) }))
}

/** Every wallet's statistics as of a time: a full computation (stored as a run), read back (sorted by wallet). */
export async function computeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number): Promise<WalletStats[]> {
  const run = await storeWalletStats(clickhouse, tables, asOfMs)
  return walletStatsOfRun(clickhouse, tables, run)
}

/** Groups (wallet, window) rows into one WalletWindows per wallet, sorted by wallet. */
export function walletWindowsFromRows(rows: readonly WalletStatsRow[]): WalletWindows[] {
  const byWallet = new Map<string, WalletWindows>()
  for (const row of rows) {
    let stats = byWallet.get(row.wallet_address)
    if (!stats) {
      stats = { wallet: row.wallet_address, windows: {} as Record<StatWindow, WindowStats> }
      byWallet.set(row.wallet_address, stats)
    }
    stats.windows[row.window] = windowStatsOf(row)
  }
  return [...byWallet.values()].sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0))
}
