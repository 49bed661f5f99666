import type { RecordInput } from '../../shared/records/records.js'
import { addressFor, hashFor } from './factories.js'

/** Records as a producer sends them (before validation), with valid defaults. */

export function swapInput(label: string, overrides: Partial<RecordInput<'swap'>> = {}): RecordInput<'swap'> {
  return {
    hash: hashFor(label),
    block_number: 19_000_000,
    timestamp: 1_717_000_000_000,
    wallet_address: addressFor('wallet-1'),
    token_sold: { contract_address: addressFor('weth'), amount_raw: '1000000000000000000' },
    token_bought: { contract_address: addressFor('usdc'), amount_raw: '3500000000' },
    value_usd: 3500,
    dex: 'uniswap_v3',
    ...overrides,
  }
}

export function tokenInput(label: string, overrides: Partial<RecordInput<'token'>> = {}): RecordInput<'token'> {
  return { contract_address: addressFor(label), name: `Token ${label}`, symbol: label.toUpperCase(), decimals: 18, ...overrides }
}

export function holdingInput(wallet: string, token: string, overrides: Partial<RecordInput<'holding'>> = {}): RecordInput<'holding'> {
  return {
    wallet_address: addressFor(wallet),
    contract_address: addressFor(token),
    balance_raw: '5000000000000000000',
    value_usd: 17_500,
    as_of: 1_717_000_000_000,
    ...overrides,
  }
}

export function priceInput(token: string, overrides: Partial<RecordInput<'price'>> = {}): RecordInput<'price'> {
  return { contract_address: addressFor(token), timestamp: 1_717_000_000_000, price_usd: 3500.25, volume_usd: 1_000_000, ...overrides }
}
