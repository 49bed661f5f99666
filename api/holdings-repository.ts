import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Holding } from '../shared/domain.js'
import { toDecimalAmount } from '../shared/amounts.js'
import { holdingId } from '../shared/ids.js'
import type { Tables } from '../shared/tables.js'
import type { Page } from './pagination.js'
import { latestTokensSubquery, tokenColumns, toTokenRef } from './token-refs.js'

interface HoldingRow extends Record<string, unknown> {
  wallet_address: string
  contract_address: string
  balance_raw: string
  value_usd: number | null
  as_of_ms: string
}

/**
 * Holdings, one per (wallet, token): FINAL keeps the latest `as_of`. Largest value_usd
 * first (unknown values last), then id: the id is wallet + "-" + token and wallets have
 * a fixed length, so ordering by (wallet, token) is ordering by id.
 */
const ORDER = 'value_usd DESC NULLS LAST, wallet_address, contract_address'
const JOINED_ORDER = 'h.value_usd DESC NULLS LAST, h.wallet_address, h.contract_address'

export class HoldingsRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  /** Every holding, or those of one token. */
  async list(page: Page, contractAddress?: string): Promise<{ holdings: Holding[]; total: number }> {
    const where = contractAddress === undefined ? '1' : 'contract_address = {address:String}'
    const params: Record<string, unknown> = contractAddress === undefined ? {} : { address: contractAddress }
    const [holdings, totals] = await Promise.all([
      this.select(
        `SELECT * FROM ${this.tables.holdings} FINAL WHERE ${where}
         ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...params, limit: page.limit, offset: page.offset },
      ),
      this.rowsOf<{ total: string }>(`SELECT count() AS total FROM ${this.tables.holdings} FINAL WHERE ${where}`, params),
    ])
    return { holdings, total: Number(totals[0]?.total ?? 0) }
  }

  async find(walletAddress: string, contractAddress: string): Promise<Holding | null> {
    const rows = await this.select(
      `SELECT * FROM ${this.tables.holdings} FINAL
       WHERE wallet_address = {wallet:String} AND contract_address = {address:String}`,
      { wallet: walletAddress, address: contractAddress },
    )
    return rows[0] ?? null
  }

  private async select(holdingsQuery: string, params: Record<string, unknown>): Promise<Holding[]> {
    const rows = await this.rowsOf<HoldingRow>(
      `SELECT h.wallet_address AS wallet_address, h.contract_address AS contract_address,
         toString(h.balance_raw) AS balance_raw, h.value_usd AS value_usd,
         toUnixTimestamp64Milli(h.as_of) AS as_of_ms, ${tokenColumns('t', 'token')}
       FROM (${holdingsQuery}) AS h
       LEFT JOIN ${latestTokensSubquery(this.tables)} AS t ON t.contract_address = h.contract_address
       ORDER BY ${JOINED_ORDER}
       SETTINGS join_use_nulls = 1`,
      params,
    )
    return rows.map(toHolding)
  }

  private async rowsOf<T>(query: string, query_params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.clickhouse.query({ query, query_params, format: 'JSONEachRow' })
    return rs.json<T>()
  }
}

function toHolding(row: HoldingRow): Holding {
  const token = toTokenRef(row, 'token', row.contract_address)
  return {
    id: holdingId(row.wallet_address, row.contract_address),
    wallet_address: row.wallet_address,
    token,
    balance_raw: row.balance_raw,
    balance: toDecimalAmount(row.balance_raw, token.decimals),
    value_usd: row.value_usd === null ? null : Number(row.value_usd),
    updated_at: new Date(Number(row.as_of_ms)).toISOString(),
  }
}
