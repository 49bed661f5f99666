import { createRequire } from 'node:module'
import type { RecordInput } from '../../shared/records/records.js'

interface TokenListEntry {
  chainId: number
  address: string
  name: string
  symbol: string
  decimals: number
}

const require = createRequire(import.meta.url)

/** Ethereum mainnet entries (chainId 1) of the npm package @uniswap/default-token-list. */
export function mainnetTokenList(): TokenListEntry[] {
  const list = require('@uniswap/default-token-list') as { tokens: TokenListEntry[] }
  return list.tokens.filter((t) => t.chainId === 1)
}

export function tokenRecordsFromList(entries: TokenListEntry[]): RecordInput<'token'>[] {
  return entries.map((t) => ({
    contract_address: t.address.toLowerCase(),
    name: t.name,
    symbol: t.symbol,
    decimals: t.decimals,
    chain_id: 1,
  }))
}
