import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'

/**
 * Whether anything at all is known about an address: metadata, prices, holdings or swaps.
 * A token is served (candles, technical analysis) as soon as any of these exists, even
 * before its metadata arrives. Each part is read through its table's primary key.
 */
export class TokenPresence {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  async isKnownAddress(contractAddress: string): Promise<boolean> {
    const [row] = await queryRows<{ known: number | string }>(
      this.clickhouse,
      `SELECT
         (SELECT count() FROM ${this.tables.tokens} WHERE contract_address = {address:String}) +
         (SELECT count() FROM ${this.tables.prices} WHERE contract_address = {address:String}) +
         (SELECT count() FROM ${this.tables.holdings} WHERE contract_address = {address:String}) +
         (SELECT count() FROM (SELECT 1 FROM ${this.tables.swapLegs} WHERE token_address = {address:String} LIMIT 1))
         AS known`,
      { address: contractAddress },
    )
    return Number(row?.known ?? 0) > 0
  }
}
