import type { RecordType } from '../platform/queues.js'
import { z } from 'zod'
import { ADDRESS_PATTERN, TX_HASH_PATTERN } from '../platform/hex-patterns.js'

/**
 * The producers' contract: one zod schema per record type, used by producers,
 * ingest workers and the backfill command alike. Parsing normalizes: addresses and
 * hashes to lower case, integers from numbers or digit strings (CSV gives strings),
 * raw amounts to canonical decimal strings.
 */

const MAX_UINT256 = (1n << 256n) - 1n

export const address = z
  .string({ error: 'must be a string "0x" followed by 40 hexadecimal characters' })
  .regex(ADDRESS_PATTERN, 'must be "0x" followed by 40 hexadecimal characters')
  .transform((s) => s.toLowerCase())

export const txHash = z
  .string({ error: 'must be a string "0x" followed by 64 hexadecimal characters' })
  .regex(TX_HASH_PATTERN, 'must be "0x" followed by 64 hexadecimal characters')
  .transform((s) => s.toLowerCase())

// A lone UTF-16 surrogate (e.g. "\ud800" from a JSON escape) is not Unicode text: ClickHouse
// refuses the whole insert that carries it, so text fields refuse it here, with a reason.
const LONE_SURROGATE = /\p{Surrogate}/u

/** Whether a string is well-formed Unicode (no lone UTF-16 surrogate), i.e. ClickHouse can store it. */
export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s)
}

export const UNSTORABLE_TEXT = 'must be well-formed Unicode text (it holds a lone UTF-16 surrogate, e.g. "\\ud800", which cannot be stored)'

/** A string ClickHouse can store; then trimmed, limited... as each field needs. */
function storableString() {
  return z.string().refine(isWellFormedText, { error: UNSTORABLE_TEXT, abort: true })
}

/** An unsigned integer given as a number or a string of digits. */
function unsignedInt(max: number, what: string) {
  return z
    .union([z.number(), z.string().regex(/^\d+$/, `${what} must be an integer`)], {
      error: `${what} must be an integer`,
    })
    .transform((v) => Number(v))
    .pipe(z.number().int(`${what} must be an integer`).min(0, `${what} must be >= 0`).max(max, `${what} must be <= ${max}`))
}

/** The last millisecond ClickHouse's DateTime64 holds: 2299-12-31T23:59:59.999Z. */
export const MAX_TIMESTAMP_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999)

export const timestampMs = unsignedInt(MAX_TIMESTAMP_MS, 'milliseconds since the epoch')

/** A uint256 amount as a decimal string: numbers are refused because they lose digits. */
export const uint256 = z
  .string({ error: 'must be a decimal string (numbers lose digits above 2^53)' })
  .regex(/^\d+$/, 'must be a decimal string of digits')
  .transform((s) => (s.length > 1 && s[0] === '0' ? s.replace(/^0+(?=\d)/, '') : s))
  .refine((s) => s.length < 78 || (s.length === 78 && BigInt(s) <= MAX_UINT256), 'must be at most 2^256-1')

/** A finite number, also accepted as a numeric string (CSV). */
function finiteNumber(what: string) {
  return z
    .union([z.number(), z.string().trim().min(1).regex(/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/, `${what} must be a number`)], {
      error: `${what} must be a number`,
    })
    .transform((v) => Number(v))
    .pipe(z.number().refine(Number.isFinite, `${what} must be finite`))
}

/** Optional in the contract: absent, null and the empty string (an empty CSV cell) mean "not given". */
function optional<T extends z.ZodTypeAny>(schema: T) {
  return z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional())
}

const chainId = optional(unsignedInt(2 ** 32 - 1, 'chain_id')).transform((v) => v ?? 1)
const valueUsd = optional(finiteNumber('value_usd').pipe(z.number().min(0, 'value_usd must be >= 0'))).transform(
  (v) => v ?? null,
)


export const tokenRecord = z.object({
  contract_address: address,
  name: storableString().trim().min(1, 'must not be empty').max(256),
  symbol: storableString().trim().min(1, 'must not be empty').max(64),
  decimals: unsignedInt(255, 'decimals'),
  id: optional(storableString().trim().min(1).max(128).regex(/^[^\s/?#]+$/, 'must not contain spaces, "/", "?" or "#"')),
  chain_id: chainId,
}).check((ctx) => {
  // An address-shaped token_id is looked up as that address (the id a token gets when its
  // producer gives none): as another token's id it would make that lookup find two tokens.
  const { id, contract_address } = ctx.value
  if (id !== undefined && ADDRESS_PATTERN.test(id) && id.toLowerCase() !== contract_address) {
    ctx.issues.push({
      code: 'custom',
      path: ['id'],
      message: `must not be another token's contract address (an id shaped like an address may only be the token's own, ${contract_address})`,
      input: id,
    })
  }
})

const swapLeg = z.object({ contract_address: address, amount_raw: uint256 })

export const swapRecord = z.object({
  hash: txHash,
  block_number: unsignedInt(Number.MAX_SAFE_INTEGER, 'block_number'),
  timestamp: timestampMs,
  wallet_address: address,
  token_sold: swapLeg,
  token_bought: swapLeg,
  value_usd: valueUsd,
  dex: optional(storableString().trim().min(1).max(128)).transform((v) => v ?? null),
  chain_id: chainId,
})

export const holdingRecord = z.object({
  wallet_address: address,
  contract_address: address,
  balance_raw: uint256,
  value_usd: valueUsd,
  as_of: timestampMs,
})

export const priceRecord = z.object({
  contract_address: address,
  timestamp: timestampMs,
  price_usd: finiteNumber('price_usd').pipe(z.number().gt(0, 'price_usd must be > 0')),
  volume_usd: optional(finiteNumber('volume_usd').pipe(z.number().min(0, 'volume_usd must be >= 0'))).transform(
    (v) => v ?? null,
  ),
})

/**
 * Withdraws a stored swap (a chain source's swap whose block was orphaned by a reorg): the
 * worker writes a tombstone of that version into every swaps table. It names the version
 * as it was delivered (time, wallet, both tokens), which is what the tombstones are keyed by.
 */
export const swapRetractionRecord = z.object({
  hash: txHash,
  chain_id: chainId,
  timestamp: timestampMs,
  wallet_address: address,
  token_sold_address: address,
  token_bought_address: address,
})

export const recordSchemas = {
  token: tokenRecord,
  swap: swapRecord,
  holding: holdingRecord,
  price: priceRecord,
  swap_retraction: swapRetractionRecord,
} as const satisfies Record<RecordType, z.ZodType>

export type TokenRecord = z.output<typeof tokenRecord>
export type SwapRecord = z.output<typeof swapRecord>
export type HoldingRecord = z.output<typeof holdingRecord>
export type PriceRecord = z.output<typeof priceRecord>
export type SwapRetractionRecord = z.output<typeof swapRetractionRecord>
export type RecordOf<T extends RecordType> = z.output<(typeof recordSchemas)[T]>
/** What a producer may send (before normalization). */
export type RecordInput<T extends RecordType> = z.input<(typeof recordSchemas)[T]>

export function isRecordType(value: string): value is RecordType {
  return Object.hasOwn(recordSchemas, value)
}

/** A one-line reason naming each offending field, for the dead-letter store. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : `record: ${i.message}${textRecordHint(i)}`))
    .join('; ')
}

/** The backfill command passes a line it cannot parse on as its text: say so in the reason. */
function textRecordHint(issue: z.core.$ZodIssue): string {
  const isText = issue.code === 'invalid_type' && issue.expected === 'object' && /received string$/.test(issue.message)
  return isText ? ' (the text of a line that is not valid JSON, or of a CSV row that could not be read)' : ''
}
