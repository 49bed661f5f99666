import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { walletStatsSelect } from './stats-query.js'
import { windowStatsOf, type WalletStatsRow } from './stats-rows.js'
import type { WalletStats, WindowStats } from './wallet-stats.js'
import type { StatWindow } from './windows.js'

/** Every wallet's statistics as of a time, computed now from the stored swaps (sorted by wallet). */
export async function computeWalletStats(clickhouse: ClickHouseClient, tables: Tables, asOfMs: number): Promise<WalletStats[]> {
  const rows = await queryRows<WalletStatsRow>(clickhouse, walletStatsSelect(tables), { as_of: dateTime64Param(asOfMs) })
  return walletStatsFromRows(rows)
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
