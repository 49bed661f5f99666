import type { FlowWindow } from './token-flows-window.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { TokenRef } from '../shared/records/domain.js'
import { toDecimalAmount } from '../shared/records/amounts.js'
import { roundValue } from './number-rounding.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'
import type { ReadOptions, VersionedResults } from './versioned-results.js'
import { servedCondition, type ServedScope } from './served-wallets.js'
import type { FeedReading } from './feed-watch.js'
import { TokenFlowsRefreshGate } from './token-flows-refresh-gate.js'
import { inEdge, splitWindow } from './token-flows-window.js'


interface FlowRow {
  swaps: string | number
  swaps_without_usd: string | number
  bought_raw: string
  sold_raw: string
  bought_usd: number
  sold_usd: number
  buys: string | number
  sells: string | number
  buying_wallets: string | number
  selling_wallets: string | number
  /** (wallet, net usd, bought raw, sold raw, bought usd, sold usd), largest net first / last. */
  top_buyers: [string, number, string, string, number, number][]
  top_sellers: [string, number, string, string, number, number][]
}

export interface WalletFlow {
  wallet_address: string
  net_value_usd: number
  bought_amount_raw: string
  sold_amount_raw: string
  bought_value_usd: number
  sold_value_usd: number
}

export interface FlowSide {
  amount_raw: string
  amount: number | null
  value_usd: number
  swaps: number
  wallets: number
}

export interface TokenFlows {
  token: TokenRef
  start_time: string
  end_time: string
  swaps: number
  /** Swaps without value_usd: counted in swaps and amounts, not in any USD figure. */
  swaps_without_usd: number
  bought: FlowSide
  sold: FlowSide
  net: { amount_raw: string; amount: number | null; value_usd: number }
  top_buyers: WalletFlow[]
  top_sellers: WalletFlow[]
}

/**
 * Net flow of one token over a window: what the stored (tracked) wallets bought and sold
 * of it, in token units and USD, how many wallets did each, and the wallets with the
 * largest net USD in and out. The window's whole hours come from the stored token flows
 * (token_wallet_hour_flows, brought up to the feed first: token-flows-refresh-gate.ts),
 * its partial first and last hours from the swaps: those come from the token's access
 * path (swap_legs_by_token) and are read by key from swaps_by_time. Both are exact (FINAL)
 * as every swap read: a re-delivered swap counts once, a retracted one not at all, and
 * the figures are those of reading every swap of the window. With SERVED_WALLETS=tracked,
 * of the served wallets only: the legs and the stored flows carry their wallet, so only
 * the served swaps are read; the rows read are filtered again (their live versions: FINAL first).
 */
export class TokenFlowsRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly kept: VersionedResults,
    private readonly gate = new TokenFlowsRefreshGate(clickhouse, tables),
  ) {}

  async flows(token: TokenRef, addresses: readonly string[], window: FlowWindow, top: number, options: ReadOptions = {}, served: ServedScope | null = null): Promise<TokenFlows> {
    const key = JSON.stringify(['flows', addresses, window, top, served?.generation ?? null])
    const row = await this.kept.read(key, (reading) => this.query(addresses, window, top, served, reading), options)
    const side = (raw: string, usd: number, swaps: string | number, wallets: string | number): FlowSide => ({
      amount_raw: raw,
      amount: toDecimalAmount(raw, token.decimals),
      value_usd: roundValue(usd),
      swaps: Number(swaps),
      wallets: Number(wallets),
    })
    const netRaw = BigInt(row.bought_raw) - BigInt(row.sold_raw)
    const netAmount = toDecimalAmount((netRaw < 0n ? -netRaw : netRaw).toString(), token.decimals)
    return {
      token,
      start_time: new Date(window.startMs).toISOString(),
      end_time: new Date(window.endMs).toISOString(),
      swaps: Number(row.swaps),
      swaps_without_usd: Number(row.swaps_without_usd),
      bought: side(row.bought_raw, row.bought_usd, row.buys, row.buying_wallets),
      sold: side(row.sold_raw, row.sold_usd, row.sells, row.selling_wallets),
      net: {
        amount_raw: netRaw.toString(),
        amount: netAmount === null ? null : netRaw < 0n ? -netAmount : netAmount,
        value_usd: roundValue(row.bought_usd - row.sold_usd),
      },
      top_buyers: row.top_buyers.map(walletFlow),
      top_sellers: row.top_sellers.map(walletFlow),
    }
  }

  private async query(addresses: readonly string[], window: FlowWindow, top: number, served: ServedScope | null, reading?: FeedReading): Promise<FlowRow> {
    const ofServed = servedCondition(this.tables, served)
    const split = splitWindow(window, addresses.length === 1)
    if (split.hours !== null) await this.gate.upTo(reading)
    const [edge1, edge2] = split.edges
    const inEdges = `(${inEdge('e1')} OR ${inEdge('e2')})`
    const wallet = `tuple(wallet_address, w_net_usd, toString(w_bought_raw), toString(w_sold_raw), w_bought_usd, w_sold_usd)`
    const [row] = await queryRows<FlowRow>(
      this.clickhouse,
      `SELECT sum(w_swaps) AS swaps, sum(w_without_usd) AS swaps_without_usd,
              toString(sum(w_bought_raw)) AS bought_raw, toString(sum(w_sold_raw)) AS sold_raw,
              sum(w_bought_usd) AS bought_usd, sum(w_sold_usd) AS sold_usd,
              sum(w_buys) AS buys, sum(w_sells) AS sells,
              countIf(w_buys > 0) AS buying_wallets, countIf(w_sells > 0) AS selling_wallets,
              arraySlice(arraySort(w -> -w.2, arrayFilter(w -> w.2 > 0, groupArray(${wallet}))), 1, {top:UInt32}) AS top_buyers,
              arraySlice(arraySort(w -> w.2, arrayFilter(w -> w.2 < 0, groupArray(${wallet}))), 1, {top:UInt32}) AS top_sellers
       FROM (
         SELECT wallet_address,
                sum(p_swaps) AS w_swaps, sum(p_without_usd) AS w_without_usd,
                sum(p_bought_raw) AS w_bought_raw, sum(p_sold_raw) AS w_sold_raw,
                sum(p_bought_usd) AS w_bought_usd, sum(p_sold_usd) AS w_sold_usd,
                sum(p_buys) AS w_buys, sum(p_sells) AS w_sells,
                w_bought_usd - w_sold_usd AS w_net_usd
         FROM (
           SELECT wallet_address,
                  count() AS p_swaps,
                  countIf(value_usd IS NULL) AS p_without_usd,
                  sumIf(token_bought_amount, token_bought_address IN {tokens:Array(String)}) AS p_bought_raw,
                  sumIf(token_sold_amount, token_sold_address IN {tokens:Array(String)}) AS p_sold_raw,
                  sumIf(ifNull(value_usd, 0), token_bought_address IN {tokens:Array(String)}) AS p_bought_usd,
                  sumIf(ifNull(value_usd, 0), token_sold_address IN {tokens:Array(String)}) AS p_sold_usd,
                  countIf(token_bought_address IN {tokens:Array(String)}) AS p_buys,
                  countIf(token_sold_address IN {tokens:Array(String)}) AS p_sells
           FROM ${this.tables.swaps} FINAL
           WHERE ${inEdges} AND (timestamp, hash, chain_id) IN (
             SELECT timestamp, hash, chain_id FROM ${this.tables.swapLegs} FINAL
             WHERE token_address IN {tokens:Array(String)} AND ${inEdges} AND ${ofServed.sql})
             AND ${ofServed.sql}
           GROUP BY wallet_address
           UNION ALL
           SELECT wallet_address, sum(swaps), sum(swaps_without_usd), sum(bought_raw), sum(sold_raw),
                  sum(bought_usd), sum(sold_usd), sum(buys), sum(sells)
           FROM ${this.tables.tokenWalletHourFlows} FINAL
           WHERE token IN {tokens:Array(String)} AND hour >= {firstHour:UInt32} AND hour <= {lastHour:UInt32} AND ${ofServed.sql}
           GROUP BY wallet_address)
         GROUP BY wallet_address)`,
      {
        tokens: addresses,
        e1Start: edge1.startMs,
        e1End: edge1.endMs,
        e2Start: edge2.startMs,
        e2End: edge2.endMs,
        // No whole hour: a range no hour is in.
        firstHour: split.hours?.first ?? 1,
        lastHour: split.hours?.last ?? 0,
        top,
        ...ofServed.params,
      },
    )
    return row!
  }
}

function walletFlow([wallet, net, boughtRaw, soldRaw, boughtUsd, soldUsd]: FlowRow['top_buyers'][number]): WalletFlow {
  return {
    wallet_address: wallet,
    net_value_usd: roundValue(net),
    bought_amount_raw: boughtRaw,
    sold_amount_raw: soldRaw,
    bought_value_usd: roundValue(boughtUsd),
    sold_value_usd: roundValue(soldUsd),
  }
}
