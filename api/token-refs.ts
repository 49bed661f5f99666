import type { Token, TokenRef } from '../shared/domain.js'
import type { Tables } from '../shared/tables.js'

/**
 * Token metadata as swaps and holdings embed it. Queries LEFT JOIN this subquery
 * (with join_use_nulls) so a record whose token has no metadata yet is still served,
 * with null fields, and picks up the metadata as soon as it exists.
 */
export function latestTokensSubquery(tables: Tables): string {
  return `(SELECT contract_address, id, name, symbol, decimals FROM ${tables.tokens} FINAL)`
}

/** The columns a query selects from a joined token alias, prefixed to stay apart. */
export function tokenColumns(alias: string, prefix: string): string {
  return [
    `${alias}.id AS ${prefix}_id`,
    `${alias}.name AS ${prefix}_name`,
    `${alias}.symbol AS ${prefix}_symbol`,
    `${alias}.decimals AS ${prefix}_decimals`,
  ].join(', ')
}

export interface TokenRow {
  contract_address: string
  id: string
  name: string
  symbol: string
  decimals: number
}

/** A token's id is the producer's, or else derived from the address (shared/ids.ts). */
export function toToken(row: TokenRow): Token {
  return {
    id: row.id || row.contract_address,
    name: row.name,
    symbol: row.symbol,
    decimals: Number(row.decimals),
    contract_address: row.contract_address,
  }
}

/** Reads the `${prefix}_*` columns of a row into a TokenRef; a missing token gives nulls. */
export function toTokenRef(row: Record<string, unknown>, prefix: string, contractAddress: string): TokenRef {
  const id = row[`${prefix}_id`]
  const name = row[`${prefix}_name`]
  const symbol = row[`${prefix}_symbol`]
  const decimals = row[`${prefix}_decimals`]
  const known = typeof name === 'string'
  return {
    id: typeof id === 'string' && id !== '' ? id : contractAddress,
    name: known ? name : null,
    symbol: known && typeof symbol === 'string' ? symbol : null,
    decimals: known && decimals !== null && decimals !== undefined ? Number(decimals) : null,
    contract_address: contractAddress,
  }
}
