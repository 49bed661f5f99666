import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { deriveTokenId } from '../shared/platform/ids.js'
import type { Tables } from '../shared/storage/tables.js'
import type { TokenMeta } from './compute-indicators.js'

interface MetaRow {
  contract_address: string
  id: string
  name: string
  symbol: string
  decimals: number
}

/** Token metadata by address (all tokens, or the given ones), for the `token` of each result. */
export async function readTokenMetadata(
  clickhouse: ClickHouseClient,
  tables: Tables,
  addresses?: string[],
): Promise<Map<string, TokenMeta>> {
  const rs = await clickhouse.query({
    query: `SELECT contract_address, id, name, symbol, decimals FROM ${tables.tokens} FINAL
            ${addresses ? 'WHERE contract_address IN {addresses:Array(String)}' : ''}`,
    query_params: addresses ? { addresses } : {},
    format: 'JSONEachRow',
  })
  const meta = new Map<string, TokenMeta>()
  for (const row of await rs.json<MetaRow>()) {
    meta.set(row.contract_address, {
      id: row.id || deriveTokenId(row.contract_address),
      name: row.name,
      symbol: row.symbol,
      decimals: Number(row.decimals),
      contractAddress: row.contract_address,
    })
  }
  return meta
}

/** A token without metadata yet: its derived id, the rest null. */
export function bareTokenMeta(contractAddress: string): TokenMeta {
  return { id: deriveTokenId(contractAddress), name: null, symbol: null, decimals: null, contractAddress }
}
