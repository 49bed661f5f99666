import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Holding } from '../shared/records/domain.js'
import { toDecimalAmount } from '../shared/records/amounts.js'
import { holdingId } from '../shared/platform/ids.js'
import type { Tables } from '../shared/storage/tables.js'
import type { Page } from './pagination.js'
import type { TokenDirectory } from './token-directory.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { ReadOptions, VersionedResults } from './versioned-results.js'
import { isServed, servedCondition, type ServedScope } from './served-wallets.js'

interface HoldingRow {
  wallet_address: string
  contract_address: string
  balance_raw: string
  value_usd: number | null
  as_of_ms: string
}

interface WalletSummaryRow {
  total: string | number
  total_value_usd: number
  without_value: string | number
}

export interface WalletHoldings {
  holdings: Holding[]
  total: number
  /** Sum of the holdings' value_usd; holdings without a value are counted in withoutValue. */
  totalValueUsd: number
  withoutValue: number
}

const COLUMNS = `wallet_address, contract_address, toString(balance_raw) AS balance_raw, value_usd,
  toUnixTimestamp64Milli(as_of) AS as_of_ms`

/**
 * Holdings, one per (wallet, token): FINAL keeps the latest `as_of`. Largest value_usd
 * first (unknown values last), then id: the id is wallet + "-" + token and wallets have
 * a fixed length, so ordering by (wallet, token) is ordering by id. The embedded token
 * comes from the in-memory directory, not from a join.
 *
 * The table is ordered by (token, wallet): one token's holdings, and one
 * holding, are read through the primary key. FINAL is the fastest exact form measured
 * here (a page of all holdings at 250,000: ~75 ms, about a quarter of LIMIT 1 BY's time;
 * docs/decisions/0004-final-for-exact-reads.md).
 */
const ORDER = 'value_usd DESC NULLS LAST, wallet_address, contract_address'

export class HoldingsRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly tokens: Pick<TokenDirectory, 'ref'>,
    private readonly kept: VersionedResults,
  ) {}

  /**
   * Every holding, or those of one token, of the served wallets (`served`; null: every
   * wallet); a page's rows are kept until holdings are stored again.
   */
  async list(page: Page, contractAddress?: string, options: ReadOptions = {}, served: ServedScope | null = null): Promise<{ holdings: Holding[]; total: number }> {
    const key = JSON.stringify([contractAddress ?? null, page.limit, page.offset, served?.generation ?? null])
    const { rows, total } = await this.kept.read(key, () => this.listRows(page, contractAddress, served), options)
    return { holdings: rows.map((r) => this.toHolding(r)), total }
  }

  private async listRows(page: Page, contractAddress: string | undefined, served: ServedScope | null): Promise<{ rows: HoldingRow[]; total: number }> {
    // FINAL keeps the latest as_of of each (token, wallet) before the filter: the wallet is a key column here, the value is not.
    const ofServed = servedCondition(this.tables, served)
    const where = `${contractAddress === undefined ? '1' : 'contract_address = {address:String}'} AND ${ofServed.sql}`
    const params: Record<string, unknown> = { ...(contractAddress === undefined ? {} : { address: contractAddress }), ...ofServed.params }
    const [rows, totals] = await Promise.all([
      queryRows<HoldingRow>(
        this.clickhouse,
        `SELECT ${COLUMNS} FROM ${this.tables.holdings} FINAL WHERE ${where}
         ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...params, limit: page.limit, offset: page.offset },
      ),
      queryRows<{ total: string }>(this.clickhouse, `SELECT count() AS total FROM ${this.tables.holdings} FINAL WHERE ${where}`, params),
    ])
    return { rows, total: Number(totals[0]?.total ?? 0) }
  }

  /** One wallet's holdings, through the wallet-ordered companion table, with their USD total; none when the wallet is not served. */
  async listOfWallet(walletAddress: string, page: Page, options: ReadOptions = {}, served: ServedScope | null = null): Promise<WalletHoldings> {
    if (!isServed(served, walletAddress)) return { holdings: [], total: 0, totalValueUsd: 0, withoutValue: 0 }
    const key = JSON.stringify(['wallet', walletAddress, page.limit, page.offset])
    const { rows, summary } = await this.kept.read(key, () => this.walletRows(walletAddress, page), options)
    return {
      holdings: rows.map((r) => this.toHolding(r)),
      total: Number(summary.total),
      totalValueUsd: Number(summary.total_value_usd),
      withoutValue: Number(summary.without_value),
    }
  }

  private async walletRows(walletAddress: string, page: Page): Promise<{ rows: HoldingRow[]; summary: WalletSummaryRow }> {
    const params = { wallet: walletAddress }
    const [rows, summaries] = await Promise.all([
      queryRows<HoldingRow>(
        this.clickhouse,
        `SELECT ${COLUMNS} FROM ${this.tables.holdingsByWallet} FINAL WHERE wallet_address = {wallet:String}
         ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...params, limit: page.limit, offset: page.offset },
      ),
      queryRows<WalletSummaryRow>(
        this.clickhouse,
        `SELECT count() AS total, sum(ifNull(value_usd, 0)) AS total_value_usd, countIf(value_usd IS NULL) AS without_value
         FROM ${this.tables.holdingsByWallet} FINAL WHERE wallet_address = {wallet:String}`,
        params,
      ),
    ])
    return { rows, summary: summaries[0] ?? { total: 0, total_value_usd: 0, without_value: 0 } }
  }

  /** One holding; null also when its wallet is not served. */
  async find(walletAddress: string, contractAddress: string, served: ServedScope | null = null): Promise<Holding | null> {
    if (!isServed(served, walletAddress)) return null
    const rows = await queryRows<HoldingRow>(
      this.clickhouse,
      `SELECT ${COLUMNS} FROM ${this.tables.holdings} FINAL
       WHERE wallet_address = {wallet:String} AND contract_address = {address:String}`,
      { wallet: walletAddress, address: contractAddress },
    )
    return rows[0] ? this.toHolding(rows[0]) : null
  }

  private toHolding(row: HoldingRow): Holding {
    const token = this.tokens.ref(row.contract_address)
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
}
