import type { RecordInput } from '../../shared/records/records.js'

/** Deterministic, realistic-looking swaps for the benchmark: record i is always the same. */
export function syntheticSwap(i: number): RecordInput<'swap'> {
  return {
    hash: `0x${i.toString(16).padStart(16, '0')}${'9f3a'.repeat(12)}`,
    block_number: 19_000_000 + Math.floor(i / 150),
    timestamp: 1_717_000_000_000 + i * 80,
    wallet_address: `0x${(i % 997).toString(16).padStart(8, '0')}${'ab12'.repeat(8)}`,
    token_sold: {
      contract_address: `0x${(i % 37).toString(16).padStart(8, '0')}${'c0de'.repeat(8)}`,
      amount_raw: `${1_000_000_000_000 + i}${String(i % 1_000_000).padStart(6, '0')}`,
    },
    token_bought: {
      contract_address: `0x${(i % 41).toString(16).padStart(8, '0')}${'beef'.repeat(8)}`,
      amount_raw: String(5_000_000 + i),
    },
    value_usd: 100 + (i % 10_000) / 7,
    dex: i % 3 === 0 ? 'uniswap_v2' : 'uniswap_v3',
  }
}
