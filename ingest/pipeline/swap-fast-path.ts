import { isWellFormedText, MAX_TIMESTAMP_MS, type SwapRecord } from '../../shared/records/records.js'
import { ADDRESS_PATTERN as ADDRESS, LOWER_ADDRESS_PATTERN as LOWER_ADDRESS, LOWER_TX_HASH_PATTERN as LOWER_HASH, TX_HASH_PATTERN as HASH } from '../../shared/platform/hex-patterns.js'

/**
 * The hot path of swap validation. Parsing a swap with its zod schema costs several
 * microseconds, most of the worker's CPU at high rates; this accepts only the plain,
 * canonical shape of a valid swap (numbers as numbers, amounts without leading zeros,
 * optional fields absent, null or plainly valid) and yields exactly what
 * `swapRecord.parse` would. Anything else is refused, and the caller falls back to the
 * schema, which decides and explains. test/ingest-swap-fast-path.test.ts checks both
 * agree on valid and mutated records.
 */

// Producers mostly send lower case already: testing for it first spares a toLowerCase copy.
const CANONICAL_AMOUNT = /^(0|[1-9]\d{0,76})$/
const MAX_CHAIN_ID = 2 ** 32 - 1

/**
 * A plain swap's normalized fields, flat. Hashes and addresses are lower-case hex and
 * amounts plain digits, proven by the checks: safe to write into JSON text unescaped.
 */
export interface PlainSwap {
  hash: string
  blockNumber: number
  timestamp: number
  wallet: string
  soldAddress: string
  soldAmount: string
  boughtAddress: string
  boughtAmount: string
  valueUsd: number | null
  dex: string | null
  chainId: number
}

export function emptyPlainSwap(): PlainSwap {
  return {
    hash: '',
    blockNumber: 0,
    timestamp: 0,
    wallet: '',
    soldAddress: '',
    soldAmount: '',
    boughtAddress: '',
    boughtAmount: '',
    valueUsd: null,
    dex: null,
    chainId: 1,
  }
}

/**
 * Fills `out` (reused from record to record: nothing is allocated per swap) and returns
 * true if `input` is a plain valid swap; returns false, with `out` in any state, otherwise.
 */
export function readPlainSwap(input: unknown, out: PlainSwap): boolean {
  if (typeof input !== 'object' || input === null) return false
  const r = input as Record<string, unknown>
  const hash = lowerHex(r.hash, LOWER_HASH, HASH)
  if (hash === undefined) return false
  const blockNumber = r.block_number
  const timestamp = r.timestamp
  if (!isSafeUnsigned(blockNumber) || !isSafeUnsigned(timestamp) || timestamp > MAX_TIMESTAMP_MS) return false
  const wallet = lowerHex(r.wallet_address, LOWER_ADDRESS, ADDRESS)
  if (wallet === undefined) return false

  const sold = r.token_sold
  if (typeof sold !== 'object' || sold === null) return false
  const soldAddress = lowerHex((sold as Record<string, unknown>).contract_address, LOWER_ADDRESS, ADDRESS)
  const soldAmount = (sold as Record<string, unknown>).amount_raw
  if (soldAddress === undefined || !isCanonicalAmount(soldAmount)) return false
  const bought = r.token_bought
  if (typeof bought !== 'object' || bought === null) return false
  const boughtAddress = lowerHex((bought as Record<string, unknown>).contract_address, LOWER_ADDRESS, ADDRESS)
  const boughtAmount = (bought as Record<string, unknown>).amount_raw
  if (boughtAddress === undefined || !isCanonicalAmount(boughtAmount)) return false

  let valueUsd: number | null = null
  const v = r.value_usd
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return false
    valueUsd = v
  } else if (v !== undefined && v !== null) return false

  let dex: string | null = null
  const d = r.dex
  if (typeof d === 'string') {
    // A lone surrogate goes to the schema, which refuses it (ClickHouse cannot store it).
    if (d.length === 0 || d.length > 128 || d.trim() !== d || !isWellFormedText(d)) return false
    dex = d
  } else if (d !== undefined && d !== null) return false

  let chainId = 1
  const c = r.chain_id
  if (typeof c === 'number') {
    if (!Number.isInteger(c) || c < 0 || c > MAX_CHAIN_ID) return false
    chainId = c
  } else if (c !== undefined && c !== null) return false

  out.hash = hash
  out.blockNumber = blockNumber
  out.timestamp = timestamp
  out.wallet = wallet
  out.soldAddress = soldAddress
  out.soldAmount = soldAmount
  out.boughtAddress = boughtAddress
  out.boughtAmount = boughtAmount
  out.valueUsd = valueUsd
  out.dex = dex
  out.chainId = chainId
  return true
}

const scratch = emptyPlainSwap()

/** The plain swap as `swapRecord.parse` returns it, or undefined: ask the schema. */
export function fastSwap(input: unknown): SwapRecord | undefined {
  if (!readPlainSwap(input, scratch)) return undefined
  const s = scratch
  return {
    hash: s.hash,
    block_number: s.blockNumber,
    timestamp: s.timestamp,
    wallet_address: s.wallet,
    token_sold: { contract_address: s.soldAddress, amount_raw: s.soldAmount },
    token_bought: { contract_address: s.boughtAddress, amount_raw: s.boughtAmount },
    value_usd: s.valueUsd,
    dex: s.dex,
    chain_id: s.chainId,
  }
}

function isSafeUnsigned(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

/** `v` in lower case if it matches `anyCase`, else undefined. */
function lowerHex(v: unknown, lower: RegExp, anyCase: RegExp): string | undefined {
  if (typeof v !== 'string') return undefined
  if (lower.test(v)) return v
  return anyCase.test(v) ? v.toLowerCase() : undefined
}

/** 77 digits are always below 2^256; 78-digit amounts go to the schema's exact check. */
function isCanonicalAmount(v: unknown): v is string {
  return typeof v === 'string' && CANONICAL_AMOUNT.test(v)
}
