/** The resources as the API serves them. */

/** Section 2.3 of the interface: exactly these fields. */
export interface Token {
  id: string
  name: string
  symbol: string
  decimals: number
  contract_address: string
}

/** A token referenced by a swap or holding whose metadata may not have arrived yet. */
export interface TokenRef {
  id: string
  name: string | null
  symbol: string | null
  decimals: number | null
  contract_address: string
}

export interface Holding {
  id: string
  wallet_address: string
  token: TokenRef
  /** The raw uint256 balance, every digit. */
  balance_raw: string
  /** balance_raw adjusted by the token's decimals; null while the decimals are unknown. */
  balance: number | null
  value_usd: number | null
  /** ISO 8601 with milliseconds and Z. */
  updated_at: string
}

export interface SwapLeg extends TokenRef {
  amount_raw: string
  amount: number | null
}

export interface SwapTransaction {
  hash: string
  chain_id: number
  block_number: number
  timestamp: string
  timestamp_ms: number
  wallet_address: string
  token_sold: SwapLeg
  token_bought: SwapLeg
  value_usd: number | null
  dex: string | null
}

export interface Candle {
  /** Start of the 4-hour interval, ms since the epoch (UTC aligned). */
  time: number
  open: number
  high: number
  low: number
  close: number
  volume: number
}
