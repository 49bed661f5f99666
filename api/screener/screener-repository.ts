import { HOUR_MS } from '../../shared/platform/time-units.js'
import type { ClickHouseClient } from '../../shared/storage/clickhouse.js'
import { listSet } from '../../shared/storage/list-param.js'
import { queryRows } from '../../shared/storage/query-rows.js'
import type { Tables } from '../../shared/storage/tables.js'
import type { FeedReading } from '../feed-watch.js'
import type { TokenFlowsRefreshGate } from '../token-flows-refresh-gate.js'
import type { ReadOptions, VersionedResults } from '../versioned-results.js'
import { TOP_WALLETS, WINDOW_HOURS, type ScreenerSort, type ScreenerWindow } from './screener-endpoint.js'
import type { ScreenerScope } from './screener-tracked-set.js'

/** One token as the tracked wallets traded it over a window: sums as stored, unrounded. */
export interface ScreenedToken {
  token: string
  boughtUsd: number
  soldUsd: number
  buyers: number
  sellers: number
  swaps: number
  swapsWithoutUsd: number
  /** (wallet, net usd, bought usd, sold usd), largest net first, then by address. */
  top: [string, number, number, number][]
}

export interface Screening {
  /** The window's hours since the epoch, inclusive. */
  firstHour: number
  lastHour: number
  /** In the order asked for. */
  tokens: readonly ScreenedToken[]
}

interface ScreenedRow {
  token: string
  bought_usd: number
  sold_usd: number
  buyers: string | number
  sellers: string | number
  swaps: string | number
  swaps_without_usd: string | number
  top: [string, number, number, number][]
}

const SORT_VALUE: Record<ScreenerSort, (t: ScreenedToken) => number> = {
  net_flow: (t) => t.boughtUsd - t.soldUsd,
  buyers: (t) => t.buyers,
  volume: (t) => t.boughtUsd + t.soldUsd,
}

/**
 * The smart-money screener: per token, what the tracked wallets bought and sold over the
 * last hours, from the stored token flows (token_wallet_hour_flows), brought up to the
 * change feed before they are read (token-flows-refresh-gate.ts). A screening is kept per
 * window, current hour and tracked set until the feed shows a swap change
 * (versioned-results.ts), each order sorted once from it: repeated requests, any page,
 * are answered from memory.
 */
export class ScreenerRepository {
  private readonly sorted = new WeakMap<readonly ScreenedToken[], Map<ScreenerSort, readonly ScreenedToken[]>>()

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly kept: VersionedResults,
    private readonly gate: TokenFlowsRefreshGate,
    private readonly clock: () => number = Date.now,
  ) {}

  async screen(window: ScreenerWindow, sort: ScreenerSort, scope: ScreenerScope, options: ReadOptions = {}): Promise<Screening> {
    const lastHour = Math.floor(this.clock() / HOUR_MS)
    const firstHour = lastHour - WINDOW_HOURS[window]
    const key = JSON.stringify(['screener', firstHour, lastHour, scope.key])
    const tokens = await this.kept.read(key, (reading) => this.query(firstHour, lastHour, scope, reading), options)
    return { firstHour, lastHour, tokens: this.inOrder(tokens, sort) }
  }

  private inOrder(tokens: readonly ScreenedToken[], sort: ScreenerSort): readonly ScreenedToken[] {
    let orders = this.sorted.get(tokens)
    if (orders === undefined) {
      orders = new Map()
      this.sorted.set(tokens, orders)
    }
    let ordered = orders.get(sort)
    if (ordered === undefined) {
      const value = SORT_VALUE[sort]
      ordered = [...tokens].sort((a, b) => value(b) - value(a) || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0))
      orders.set(sort, ordered)
    }
    return ordered
  }

  private async query(firstHour: number, lastHour: number, scope: ScreenerScope, reading?: FeedReading): Promise<ScreenedToken[]> {
    if (scope.wallets.length === 0) return []
    await this.gate.upTo(reading)
    const wallet = 'tuple(wallet_address, w_bought_usd - w_sold_usd, w_bought_usd, w_sold_usd)'
    const rows = await queryRows<ScreenedRow>(
      this.clickhouse,
      `SELECT token, sum(w_bought_usd) AS bought_usd, sum(w_sold_usd) AS sold_usd,
              countIf(w_buys > 0) AS buyers, countIf(w_sells > 0) AS sellers,
              sum(w_swaps) AS swaps, sum(w_without_usd) AS swaps_without_usd,
              arraySlice(arraySort(w -> (-w.2, w.1), groupArray(${wallet})), 1, {top:UInt32}) AS top
       FROM (
         SELECT token, wallet_address,
                sum(swaps) AS w_swaps, sum(swaps_without_usd) AS w_without_usd,
                sum(buys) AS w_buys, sum(sells) AS w_sells,
                sum(bought_usd) AS w_bought_usd, sum(sold_usd) AS w_sold_usd
         FROM ${this.tables.tokenWalletHourFlows} FINAL
         WHERE hour >= {firstHour:UInt32} AND hour <= {lastHour:UInt32} AND wallet_address IN ${listSet('wallets')}
         GROUP BY token, wallet_address)
       GROUP BY token`,
      { firstHour, lastHour, wallets: scope.wallets, top: TOP_WALLETS },
    )
    return rows.map((r) => ({
      token: r.token,
      boughtUsd: r.bought_usd,
      soldUsd: r.sold_usd,
      buyers: Number(r.buyers),
      sellers: Number(r.sellers),
      swaps: Number(r.swaps),
      swapsWithoutUsd: Number(r.swaps_without_usd),
      top: r.top,
    }))
  }
}
