import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Token } from '../shared/domain.js'
import type { Tables } from '../shared/tables.js'
import type { Page } from './pagination.js'
import { toToken, type TokenRow } from './token-refs.js'

/** Tokens with metadata, one row per contract address (FINAL collapses re-written rows). */
export class TokensRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  /** Ordered by symbol, then contract address (unique), so paging is stable. */
  async list(page: Page): Promise<{ tokens: Token[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.rows(
        `SELECT contract_address, id, name, symbol, decimals FROM ${this.tables.tokens} FINAL
         ORDER BY symbol, contract_address
         LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { limit: page.limit, offset: page.offset },
      ),
      this.count(),
    ])
    return { tokens: rows.map(toToken), total }
  }

  async findByAddress(contractAddress: string): Promise<Token | null> {
    const rows = await this.rows(
      `SELECT contract_address, id, name, symbol, decimals FROM ${this.tables.tokens} FINAL
       WHERE contract_address = {address:String}`,
      { address: contractAddress },
    )
    return rows[0] ? toToken(rows[0]) : null
  }

  /**
   * The contract addresses a token_id names: tokens whose id is that value, and, for an
   * address-shaped id, the address itself when no token row gives it another id (the
   * derived id of a token without metadata, or of one whose producer gave none).
   */
  async addressesForTokenId(tokenId: string, addressShaped: boolean): Promise<string[]> {
    const lower = tokenId.toLowerCase()
    const rows = await this.rowsOf<{ contract_address: string; id: string }>(
      `SELECT contract_address, id FROM ${this.tables.tokens} FINAL
       WHERE id IN {ids:Array(String)} OR contract_address = {address:String}`,
      { ids: [...new Set([tokenId, lower])], address: addressShaped ? lower : '' },
    )
    const addresses = new Set<string>()
    for (const row of rows) {
      const effectiveId = row.id || row.contract_address
      if (effectiveId === tokenId || (addressShaped && effectiveId === lower)) addresses.add(row.contract_address)
    }
    if (addressShaped && !rows.some((r) => r.contract_address === lower)) addresses.add(lower)
    return [...addresses].sort()
  }

  /** Whether anything at all is known about the address: metadata, prices or swaps. */
  async isKnownAddress(contractAddress: string): Promise<boolean> {
    const rows = await this.rowsOf<{ known: number }>(
      `SELECT
         (SELECT count() FROM ${this.tables.tokens} WHERE contract_address = {address:String}) +
         (SELECT count() FROM ${this.tables.prices} WHERE contract_address = {address:String}) +
         (SELECT count() FROM ${this.tables.holdings} WHERE contract_address = {address:String}) +
         (SELECT count() FROM (SELECT 1 FROM ${this.tables.swapLegs} WHERE token_address = {address:String} LIMIT 1))
         AS known`,
      { address: contractAddress },
    )
    return Number(rows[0]?.known ?? 0) > 0
  }

  private async count(): Promise<number> {
    const rows = await this.rowsOf<{ total: string }>(`SELECT count() AS total FROM ${this.tables.tokens} FINAL`, {})
    return Number(rows[0]?.total ?? 0)
  }

  private rows(query: string, params: Record<string, unknown>): Promise<TokenRow[]> {
    return this.rowsOf<TokenRow>(query, params)
  }

  private async rowsOf<T>(query: string, query_params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.clickhouse.query({ query, query_params, format: 'JSONEachRow' })
    return rs.json<T>()
  }
}
