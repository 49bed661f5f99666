import { MAX_TIMESTAMP_MS, type SwapRecord } from '../shared/records.js'

/**
 * The hot path of swap validation. Parsing a swap with its zod schema costs several
 * microseconds, most of the worker's CPU at high rates; this accepts only the plain,
 * canonical shape of a valid swap (numbers as numbers, amounts without leading zeros,
 * optional fields absent, null or plainly valid) and returns exactly what
 * `swapRecord.parse` would. Anything else returns undefined, and the caller falls back to
 * the schema, which decides and explains. test/ingest-swap-fast-path.test.ts checks both
 * agree on valid and mutated records.
 */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HASH = /^0x[0-9a-fA-F]{64}$/
const CANONICAL_AMOUNT = /^(0|[1-9]\d{0,76})$/
const MAX_CHAIN_ID = 2 ** 32 - 1

export function fastSwap(input: unknown): SwapRecord | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const r = input as Record<string, unknown>
  const hash = r.hash
  const blockNumber = r.block_number
  const timestamp = r.timestamp
  const wallet = r.wallet_address
  if (typeof hash !== 'string' || !HASH.test(hash)) return undefined
  if (!isSafeUnsigned(blockNumber) || !isSafeUnsigned(timestamp) || timestamp > MAX_TIMESTAMP_MS) return undefined
  if (typeof wallet !== 'string' || !ADDRESS.test(wallet)) return undefined
  const sold = leg(r.token_sold)
  if (!sold) return undefined
  const bought = leg(r.token_bought)
  if (!bought) return undefined

  let valueUsd: number | null = null
  const v = r.value_usd
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return undefined
    valueUsd = v
  } else if (v !== undefined && v !== null) return undefined

  let dex: string | null = null
  const d = r.dex
  if (typeof d === 'string') {
    if (d.length === 0 || d.length > 128 || d.trim() !== d) return undefined
    dex = d
  } else if (d !== undefined && d !== null) return undefined

  let chainId = 1
  const c = r.chain_id
  if (typeof c === 'number') {
    if (!Number.isInteger(c) || c < 0 || c > MAX_CHAIN_ID) return undefined
    chainId = c
  } else if (c !== undefined && c !== null) return undefined

  return {
    hash: hash.toLowerCase(),
    block_number: blockNumber,
    timestamp,
    wallet_address: wallet.toLowerCase(),
    token_sold: sold,
    token_bought: bought,
    value_usd: valueUsd,
    dex,
    chain_id: chainId,
  }
}

function isSafeUnsigned(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

function leg(input: unknown): { contract_address: string; amount_raw: string } | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const l = input as Record<string, unknown>
  const address = l.contract_address
  const amount = l.amount_raw
  if (typeof address !== 'string' || !ADDRESS.test(address)) return undefined
  // 77 digits are always below 2^256; 78-digit amounts go to the schema's exact check.
  if (typeof amount !== 'string' || !CANONICAL_AMOUNT.test(amount)) return undefined
  return { contract_address: address.toLowerCase(), amount_raw: amount }
}
