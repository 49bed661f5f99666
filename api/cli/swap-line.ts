interface TokenSide {
  symbol: string | null
  contract_address: string
  amount: string | null
  amount_raw: string
}

/** The fields of a `swap` event the line shows. */
export interface StreamedSwap {
  timestamp: string
  wallet_address: string
  token_sold: TokenSide
  token_bought: TokenSide
  value_usd: number | null
  dex: string | null
  hash: string
}

const side = (t: TokenSide) => `${t.amount ?? t.amount_raw} ${t.symbol ?? t.contract_address}`

/** One line per swap: time, wallet, sold → bought, USD, dex. */
export function swapLine(s: StreamedSwap): string {
  const usd = s.value_usd === null ? '$?' : `$${s.value_usd.toFixed(2)}`
  return `${s.timestamp}  ${s.wallet_address}  ${side(s.token_sold)} → ${side(s.token_bought)}  ${usd}  ${s.dex ?? '-'}`
}

/** One line per retraction. */
export function retractionLine(r: { chain_id: number; hash: string; timestamp_ms: number; wallet_address: string }): string {
  return `${new Date(r.timestamp_ms).toISOString()}  ${r.wallet_address}  retracted ${r.hash} (chain ${r.chain_id})`
}
