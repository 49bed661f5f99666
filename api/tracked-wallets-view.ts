import { LISTED_LABEL } from '../shared/platform/smart-money-settings.js'
import type { TrackedWallets } from '../shared/smart-money/tracked-wallets-file.js'
import { NO_OPEN_POSITIONS, type OpenPositions, type WalletWindows, type WindowStats } from '../shared/smart-money/wallet-stats.js'
import type { StatWindow } from '../shared/platform/smart-money-settings.js'
import type { WalletSort } from './contract/endpoints/smart-money.js'

export interface TrackedWallet {
  wallet: string
  /** "listed" first, then the ids of the rules it passes, in rule order. */
  labels: string[]
  /** null before the first computation. */
  stats: WalletWindows | null
}

export interface TrackedOrder {
  window: StatWindow
  sort: WalletSort
  order: 'asc' | 'desc'
  label?: string | undefined
}

/** How many wallets' open positions a view keeps. */
const MAX_VALUED = 100_000

const SORT_VALUE: Record<WalletSort, (s: WindowStats) => number | null> = {
  pnl: (s) => s.realizedPnlUsd,
  roi: (s) => s.roi,
  win_rate: (s) => s.winRate,
  volume: (s) => s.volumeUsd,
  last_trade: (s) => s.lastTradeMs,
}

/**
 * The tracked set of one statistics run and one reading of the tracked-wallets file: each
 * wallet with its labels and statistics. Neither changes until the next run or the next edit
 * of the file, so each order a request asks for is sorted once and kept: a page is a slice,
 * whatever the size of the set.
 */
export class TrackedWalletsView {
  private readonly orders = new Map<string, readonly TrackedWallet[]>()
  private readonly valued = new Map<string, OpenPositions>()
  private readonly labels: Set<string>
  private readonly byAddress: Map<string, TrackedWallet>

  /**
   * @param ranks rule id → wallet → its place in the rule's passers (a top rule's rank).
   */
  constructor(
    readonly wallets: readonly TrackedWallet[],
    private readonly ranks: ReadonlyMap<string, ReadonlyMap<string, number>>,
  ) {
    this.labels = new Set(wallets.flatMap((w) => w.labels))
    this.byAddress = new Map(wallets.map((w) => [w.wallet, w]))
  }

  /** A tracked wallet's statistics; undefined when it is not tracked or before the first run. */
  statsOf(wallet: string): WalletWindows | undefined {
    return this.byAddress.get(wallet)?.stats ?? undefined
  }

  /**
   * The open positions of these wallets (any wallet: a profile's too), valued by `read` the
   * first time the view shows them (a page's wallets, not the whole set) and the same figures
   * after, until the next view (the next run).
   */
  async openPositionsOf(wallets: readonly string[], read: (wallets: string[]) => Promise<ReadonlyMap<string, OpenPositions>>): Promise<Map<string, OpenPositions>> {
    const missing = wallets.filter((w) => !this.valued.has(w))
    if (missing.length > 0) {
      const got = await read(missing)
      // Any address can be asked for: the kept figures are bounded, started over when full.
      if (this.valued.size + missing.length > MAX_VALUED) this.valued.clear()
      for (const w of missing) this.valued.set(w, got.get(w) ?? NO_OPEN_POSITIONS)
    }
    return new Map(wallets.map((w) => [w, this.valued.get(w)!]))
  }

  rank(ruleId: string, wallet: string): number | null {
    return this.ranks.get(ruleId)?.get(wallet) ?? null
  }

  /** Sorted by the statistic over the window (nulls last whatever the order), then by address. */
  ordered({ window, sort, order, label }: TrackedOrder): readonly TrackedWallet[] {
    // Only labels some wallet carries make a kept order: the key space stays bounded.
    if (label !== undefined && !this.labels.has(label)) return []
    const key = `${window}|${sort}|${order}|${label ?? ''}`
    let rows = this.orders.get(key)
    if (!rows) {
      rows = sortWallets(this.wallets, { window, sort, order, label })
      this.orders.set(key, rows)
    }
    return rows
  }
}

function sortWallets(wallets: readonly TrackedWallet[], { window, sort, order, label }: TrackedOrder): TrackedWallet[] {
  const valueOf = SORT_VALUE[sort]
  const direction = order === 'asc' ? 1 : -1
  return wallets
    .filter((w) => label === undefined || w.labels.includes(label))
    .map((w) => ({ w, value: w.stats ? valueOf(w.stats.windows[window]) : null }))
    .sort((a, b) => {
      if (a.value !== b.value) {
        if (a.value === null) return 1
        if (b.value === null) return -1
        return (a.value - b.value) * direction
      }
      return a.w.wallet < b.w.wallet ? -1 : a.w.wallet > b.w.wallet ? 1 : 0
    })
    .map((r) => r.w)
}

/** The listed wallets and the rules' passers, each once, with their labels and statistics. */
export function trackedWalletsOf(listed: TrackedWallets, passers: ReadonlyMap<string, readonly string[]>, stats: ReadonlyMap<string, WalletWindows> | null): TrackedWallet[] {
  const labels = new Map<string, string[]>([...listed.wallets.keys()].map((w) => [w, [LISTED_LABEL]]))
  for (const [wallet, ids] of passers) labels.set(wallet, [...(labels.get(wallet) ?? []), ...ids])
  return [...labels].map(([wallet, own]) => ({ wallet, labels: own, stats: stats?.get(wallet) ?? null }))
}
