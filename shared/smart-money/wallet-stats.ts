import { STAT_WINDOWS, type StatWindow } from '../platform/smart-money-settings.js'

/** A stored swap as the statistics see it (one live version: re-deliveries collapsed, retractions gone). */
export interface StatSwap {
  wallet: string
  timestampMs: number
  hash: string
  chainId: number
  soldToken: string
  /** Raw uint256, every digit. */
  soldAmount: bigint
  boughtToken: string
  boughtAmount: bigint
  valueUsd: number | null
}

/**
 * One wallet's trading over one window ending at the computation's time. Positions are
 * carried from the wallet's first swap, so a sell inside the window is costed with buys
 * made before it; only legs inside the window add to the window's sums.
 */
export interface WindowStats {
  trades: number
  /** Trades without value_usd: counted in `trades`, outside every USD figure. */
  tradesWithoutUsd: number
  /** Sum of value_usd of the trades (each swap once: it is a buy of one token and a sell of the other). */
  volumeUsd: number
  /** Proceeds of the sells that reduced a position with a recorded cost (their covered part). */
  matchedProceedsUsd: number
  /** Proceeds of sold quantity never recorded as bought (or bought without a USD value): no cost basis, no PnL. */
  unmatchedProceedsUsd: number
  /** Cost basis (weighted average) of the quantity those sells removed. */
  closedCostUsd: number
  realizedPnlUsd: number
  /** realizedPnlUsd / closedCostUsd; null when nothing with a cost basis was sold. */
  roi: number | null
  /** Sells that reduced or closed a position with a cost basis (and had a USD value). */
  positionsReduced: number
  /** Of those, the ones with a positive realized PnL. */
  positionsWon: number
  /** positionsWon / positionsReduced; null when none. */
  winRate: number | null
  tokensTraded: number
  firstTradeMs: number | null
  lastTradeMs: number | null
}

/** A wallet's statistics per window, as a run stores them. */
export interface WalletWindows {
  wallet: string
  windows: Record<StatWindow, WindowStats>
}

/** A wallet's open positions (tracked quantity > 0), valued when read (open-positions.ts). */
export interface OpenPositions {
  /** The open positions at the latest price of their token, less their cost. */
  unrealizedPnlUsd: number
  openPositions: number
}

/** A wallet's statistics: per window, and its open positions valued now. */
export type WalletStats = WalletWindows & OpenPositions

export const NO_OPEN_POSITIONS: OpenPositions = { unrealizedPnlUsd: 0, openPositions: 0 }

/** A window without trades. */
export function emptyWindowStats(): WindowStats {
  return {
    trades: 0,
    tradesWithoutUsd: 0,
    volumeUsd: 0,
    matchedProceedsUsd: 0,
    unmatchedProceedsUsd: 0,
    closedCostUsd: 0,
    realizedPnlUsd: 0,
    roi: null,
    positionsReduced: 0,
    positionsWon: 0,
    winRate: null,
    tokensTraded: 0,
    firstTradeMs: null,
    lastTradeMs: null,
  }
}

/** A wallet without swaps: any address may be a wallet. */
export function emptyWalletStats(wallet: string): WalletStats {
  const windows = Object.fromEntries(STAT_WINDOWS.map((w) => [w, emptyWindowStats()])) as Record<StatWindow, WindowStats>
  return { wallet, windows, ...NO_OPEN_POSITIONS }
}
