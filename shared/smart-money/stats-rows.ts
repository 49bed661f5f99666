import type { WindowStats } from './wallet-stats.js'
import type { StatWindow } from '../platform/smart-money-settings.js'

/** One (wallet, window) row as JSONEachRow returns it (64-bit integers quoted, times as text). */
export interface WalletStatsRow {
  wallet_address: string
  window: StatWindow
  trades: string | number
  trades_without_usd: string | number
  volume_usd: number
  matched_proceeds_usd: number
  unmatched_proceeds_usd: number
  closed_cost_usd: number
  realized_pnl_usd: number
  positions_reduced: string | number
  positions_won: string | number
  tokens_traded: string | number
  first_trade: string | null
  last_trade: string | null
}

/** ClickHouse's DateTime64 text (UTC) → ms. */
function timeMs(text: string | null): number | null {
  return text === null ? null : Date.parse(`${text.replace(' ', 'T')}Z`)
}

export function windowStatsOf(row: WalletStatsRow): WindowStats {
  const positionsReduced = Number(row.positions_reduced)
  const positionsWon = Number(row.positions_won)
  return {
    trades: Number(row.trades),
    tradesWithoutUsd: Number(row.trades_without_usd),
    volumeUsd: row.volume_usd,
    matchedProceedsUsd: row.matched_proceeds_usd,
    unmatchedProceedsUsd: row.unmatched_proceeds_usd,
    closedCostUsd: row.closed_cost_usd,
    realizedPnlUsd: row.realized_pnl_usd,
    roi: row.closed_cost_usd > 0 ? row.realized_pnl_usd / row.closed_cost_usd : null,
    positionsReduced,
    positionsWon,
    winRate: positionsReduced > 0 ? positionsWon / positionsReduced : null,
    tokensTraded: Number(row.tokens_traded),
    firstTradeMs: timeMs(row.first_trade),
    lastTradeMs: timeMs(row.last_trade),
  }
}
