import type { HoldingRecord, PriceRecord, SwapRecord, TokenRecord } from '../../shared/records/records.js'

/**
 * Validated records as rows of their ClickHouse tables (inserted as JSONCompactEachRow, see
 * compact-rows.ts). Times are integer milliseconds, which ClickHouse reads into
 * DateTime64(3) as-is; uint256 amounts stay decimal strings, which it reads into UInt256
 * without losing a digit.
 */

export interface SwapRow {
  chain_id: number
  hash: string
  block_number: number
  timestamp: number
  wallet_address: string
  token_sold_address: string
  token_sold_amount: string
  token_bought_address: string
  token_bought_amount: string
  value_usd: number | null
  dex: string | null
  ingested_at: number
}

export interface HoldingRow {
  wallet_address: string
  contract_address: string
  balance_raw: string
  value_usd: number | null
  /** The ReplacingMergeTree version: an older as_of never replaces a newer one. */
  as_of: number
}

export interface PriceRow {
  contract_address: string
  timestamp: number
  price_usd: number
  volume_usd: number | null
  ingested_at: number
}

export interface TokenRow {
  contract_address: string
  id: string
  chain_id: number
  name: string
  symbol: string
  decimals: number
  updated_at: number
}

export function swapRow(r: SwapRecord, ingestedAt: number): SwapRow {
  return {
    chain_id: r.chain_id,
    hash: r.hash,
    block_number: r.block_number,
    timestamp: r.timestamp,
    wallet_address: r.wallet_address,
    token_sold_address: r.token_sold.contract_address,
    token_sold_amount: r.token_sold.amount_raw,
    token_bought_address: r.token_bought.contract_address,
    token_bought_amount: r.token_bought.amount_raw,
    value_usd: r.value_usd,
    dex: r.dex,
    ingested_at: ingestedAt,
  }
}

export function holdingRow(r: HoldingRecord): HoldingRow {
  return {
    wallet_address: r.wallet_address,
    contract_address: r.contract_address,
    balance_raw: r.balance_raw,
    value_usd: r.value_usd,
    as_of: r.as_of,
  }
}

export function priceRow(r: PriceRecord, ingestedAt: number): PriceRow {
  return {
    contract_address: r.contract_address,
    timestamp: r.timestamp,
    price_usd: r.price_usd,
    volume_usd: r.volume_usd,
    ingested_at: ingestedAt,
  }
}

/** `id` is the resolved, stable id (see token-ids.ts), not necessarily the one the producer sent. */
export function tokenRow(r: TokenRecord, id: string, updatedAt: number): TokenRow {
  return {
    contract_address: r.contract_address,
    id,
    chain_id: r.chain_id,
    name: r.name,
    symbol: r.symbol,
    decimals: r.decimals,
    updated_at: updatedAt,
  }
}
