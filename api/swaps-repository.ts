import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { SwapTransaction } from '../shared/domain.js'
import { toDecimalAmount } from '../shared/amounts.js'
import type { Tables } from '../shared/tables.js'
import { MAX_TIMESTAMP_MS } from '../shared/records.js'
import type { Page } from './pagination.js'
import { latestTokensSubquery, tokenColumns, toTokenRef } from './token-refs.js'

export interface SwapFilter {
  /** Inclusive bounds, ms since the epoch. */
  startMs: number
  endMs: number
  walletAddress?: string
  /** Swaps whose sold or bought token is one of these addresses. */
  tokenAddresses?: string[]
}

interface SwapRow extends Record<string, unknown> {
  hash: string
  chain_id: number
  block_number: string
  timestamp_ms: string
  wallet_address: string
  token_sold_address: string
  token_sold_amount: string
  token_bought_address: string
  token_bought_amount: string
  value_usd: number | null
  dex: string | null
}


/**
 * Swaps, one per (chain, hash): a swap written more than once is listed and counted
 * once. Newest first, then hash and chain: a unique total order.
 */
export class SwapsRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  async list(filter: SwapFilter, page: Page): Promise<{ swaps: SwapTransaction[]; total: number }> {
    const { where, params } = this.whereClause(filter)
    const source = this.latestSwaps(where, filter.walletAddress !== undefined || filter.tokenAddresses !== undefined)
    const [rows, totals] = await Promise.all([
      this.select(
        `SELECT * FROM ${source} ORDER BY timestamp DESC, hash, chain_id
         LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...params, limit: page.limit, offset: page.offset },
      ),
      this.rowsOf<{ total: string }>(`SELECT count() AS total FROM ${source}`, params),
    ])
    return { swaps: rows, total: Number(totals[0]?.total ?? 0) }
  }

  /**
   * The latest version of each swap matching `where`. Measured on 300,000 swaps
   * (api/dedup-benchmark.ts): FINAL is about 3x faster for the unfiltered time range,
   * `LIMIT 1 BY` the key 1.5-2.5x faster with a wallet or token filter (the filter runs
   * before deduplication). Filtering first is safe because a swap's wallet and tokens
   * never change between deliveries of the same (chain, hash).
   */
  private latestSwaps(where: string, filtered: boolean): string {
    return filtered
      ? `(SELECT * FROM ${this.tables.swaps} WHERE ${where}
          ORDER BY chain_id, hash, ingested_at DESC LIMIT 1 BY chain_id, hash)`
      : `(SELECT * FROM ${this.tables.swaps} FINAL WHERE ${where})`
  }

  /** One record per transaction hash; should two chains share a hash, the lowest chain id. */
  async findByHash(hash: string): Promise<SwapTransaction | null> {
    const rows = await this.select(
      `SELECT * FROM ${this.tables.swaps} FINAL WHERE hash = {hash:String} ORDER BY chain_id LIMIT 1`,
      { hash },
    )
    return rows[0] ?? null
  }

  private whereClause(filter: SwapFilter): { where: string; params: Record<string, unknown> } {
    const conditions = [
      'timestamp >= fromUnixTimestamp64Milli({start:Int64}, \'UTC\')',
      'timestamp <= fromUnixTimestamp64Milli({end:Int64}, \'UTC\')',
    ]
    const params: Record<string, unknown> = {
      start: Math.min(filter.startMs, MAX_TIMESTAMP_MS),
      end: Math.min(filter.endMs, MAX_TIMESTAMP_MS),
    }
    if (filter.walletAddress !== undefined) {
      conditions.push('wallet_address = {wallet:String}')
      params.wallet = filter.walletAddress
    }
    if (filter.tokenAddresses !== undefined) {
      conditions.push('(token_sold_address IN {tokens:Array(String)} OR token_bought_address IN {tokens:Array(String)})')
      params.tokens = filter.tokenAddresses
    }
    return { where: conditions.join(' AND '), params }
  }

  /** `swapsQuery` picks and orders the page; this joins the token metadata onto it. */
  private async select(swapsQuery: string, params: Record<string, unknown>): Promise<SwapTransaction[]> {
    const tokens = latestTokensSubquery(this.tables)
    const rows = await this.rowsOf<SwapRow>(
      `SELECT s.hash AS hash, s.chain_id AS chain_id, s.block_number AS block_number,
         toUnixTimestamp64Milli(s.timestamp) AS timestamp_ms, s.wallet_address AS wallet_address,
         s.token_sold_address AS token_sold_address, toString(s.token_sold_amount) AS token_sold_amount,
         s.token_bought_address AS token_bought_address, toString(s.token_bought_amount) AS token_bought_amount,
         s.value_usd AS value_usd, s.dex AS dex,
         ${tokenColumns('ts', 'sold')}, ${tokenColumns('tb', 'bought')}
       FROM (${swapsQuery}) AS s
       LEFT JOIN ${tokens} AS ts ON ts.contract_address = s.token_sold_address
       LEFT JOIN ${tokens} AS tb ON tb.contract_address = s.token_bought_address
       ORDER BY s.timestamp DESC, s.hash, s.chain_id
       SETTINGS join_use_nulls = 1`,
      params,
    )
    return rows.map(toSwap)
  }

  private async rowsOf<T>(query: string, query_params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.clickhouse.query({ query, query_params, format: 'JSONEachRow' })
    return rs.json<T>()
  }
}

function toSwap(row: SwapRow): SwapTransaction {
  const sold = toTokenRef(row, 'sold', row.token_sold_address)
  const bought = toTokenRef(row, 'bought', row.token_bought_address)
  const timestampMs = Number(row.timestamp_ms)
  return {
    hash: row.hash,
    chain_id: Number(row.chain_id),
    block_number: Number(row.block_number),
    timestamp: new Date(timestampMs).toISOString(),
    timestamp_ms: timestampMs,
    wallet_address: row.wallet_address,
    token_sold: { ...sold, amount_raw: row.token_sold_amount, amount: toDecimalAmount(row.token_sold_amount, sold.decimals) },
    token_bought: {
      ...bought,
      amount_raw: row.token_bought_amount,
      amount: toDecimalAmount(row.token_bought_amount, bought.decimals),
    },
    value_usd: row.value_usd === null ? null : Number(row.value_usd),
    dex: row.dex,
  }
}
