import { z } from 'zod'
import { ADDRESS_PATTERN, TX_HASH_PATTERN } from '../../shared/platform/hex-patterns.js'
import { parseHoldingId } from '../../shared/platform/ids.js'

/**
 * The request parameters, each declared once as a zod schema: the validation, the 400
 * messages and the OpenAPI description of a parameter all come from here. Query values
 * arrive as strings (a repeated parameter as an array, which is a 400), path values as
 * strings.
 */


export const DEFAULT_LIMIT = 50
/** The interface's lists (section 8). */
export const MAX_LIMIT = 500
/** The longest page of a time series (candles, indicator history): a chart's worth. */
export const MAX_SERIES_LIMIT = 1000

export function givenOnce(name: string): string {
  return `${name} must be given once, as a single value`
}

export function shown(input: unknown): string {
  return typeof input === 'string' ? input : String(input)
}

/** A query value given at most once; `required` is the message when it is absent. */
export function singleValue(name: string, required = `${name} is required`) {
  return z.string({ error: (issue) => (issue.input === undefined ? required : givenOnce(name)) })
}

/** Digits that fit a safe integer become a number; anything else stays as given, for the message. */
function digitsToNumber(raw: unknown): unknown {
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return raw
  const value = Number(raw)
  return Number.isSafeInteger(value) ? value : raw
}

/** An integer from `min` to `max`; out of range or not an integer is a 400 naming the bounds. Never clamped. */
export function boundedInteger(name: string, min: number, max: number) {
  const message = (issue: { input?: unknown }) =>
    Array.isArray(issue.input) ? givenOnce(name) : `${name} must be an integer from ${min} to ${max} (got "${shown(issue.input)}")`
  return z.preprocess(digitsToNumber, z.int({ error: message }).min(min, { error: message }).max(max, { error: message }))
}

/**
 * `limit` (1..`maxLimit`, default 50): out-of-range values are a 400, never clamped (a
 * client stepping its offset by the limit it asked for would otherwise skip rows).
 */
export function limitParam(maxLimit: number = MAX_LIMIT) {
  return boundedInteger('limit', 1, maxLimit)
    .optional()
    .default(DEFAULT_LIMIT)
    .meta({ description: `Records per page, 1 to ${maxLimit}. Never clamped: a larger value is a 400.` })
}

export const offsetParam = boundedInteger('offset', 0, Number.MAX_SAFE_INTEGER)
  .optional()
  .default(0)
  .meta({ description: 'Records to skip.' })

/** `format`: every list is also served as CSV (same columns as the JSON rows). */
export const LIST_FORMATS = ['json', 'csv'] as const
export type ListFormat = (typeof LIST_FORMATS)[number]

export const formatParam = z
  .enum(LIST_FORMATS)
  .optional()
  .default('json')
  .meta({ description: 'json (default) or csv: the same rows, one per line, with a header.' })

/** A yes/no query flag: `true` or `false` (default false); anything else is a 400 naming it. */
export function flagParam(name: string) {
  const message = (issue: { input?: unknown }) =>
    Array.isArray(issue.input) ? givenOnce(name) : `${name} must be true or false (got "${shown(issue.input)}")`
  return z
    .enum(['true', 'false'], { error: message })
    .optional()
    .default('false')
    .transform((v) => v === 'true')
}

/** The query parameters every list takes. */
export function pageQueryShape(maxLimit: number = MAX_LIMIT) {
  return { limit: limitParam(maxLimit), offset: offsetParam, format: formatParam }
}

export function timeRequiredMessage(name: string): string {
  return `${name} is required (Unix time in milliseconds)`
}

/** A time in ms since the epoch: a non-negative safe integer; absent or empty is a 400. */
export function timeParam(name: string) {
  const malformed = (issue: { input?: unknown }) =>
    issue.input === undefined
      ? timeRequiredMessage(name)
      : Array.isArray(issue.input)
        ? givenOnce(name)
        : `${name} must be a non-negative integer number of milliseconds since the epoch (got "${shown(issue.input)}")`
  return z.preprocess(
    (raw) => (raw === '' ? undefined : digitsToNumber(raw)),
    z.int({ error: malformed }).min(0, { error: malformed }),
  )
}

/** As timeParam, but absent (or empty) is allowed: see checkTimeRange for the pair. */
export function optionalTimeParam(name: string) {
  return z.preprocess((raw) => (raw === '' ? undefined : raw), timeParam(name).optional())
}

interface RangeValues {
  start_time?: number | undefined
  end_time?: number | undefined
}

/**
 * Both ends given (or, for an optional range, neither): one without the other is a 400
 * naming the missing one; start after end is a 400.
 */
export function checkTimeRange(value: RangeValues, ctx: z.RefinementCtx): void {
  const { start_time: start, end_time: end } = value
  if (start === undefined && end === undefined) return
  if (start === undefined || end === undefined) {
    const missing = start === undefined ? 'start_time' : 'end_time'
    ctx.addIssue({ code: 'custom', path: [missing], message: timeRequiredMessage(missing) })
    return
  }
  if (start > end) ctx.addIssue({ code: 'custom', message: `start_time (${start}) must not be after end_time (${end})` })
}

export const START_TIME_DESCRIPTION = 'Start of the range, inclusive: Unix time in milliseconds (not seconds).'
export const END_TIME_DESCRIPTION = 'End of the range, inclusive: Unix time in milliseconds (not seconds).'

/** An address in any case (EIP-55 or lower), served in lower case. */
export function addressParam(name: string) {
  const required = `${name} is required`
  return z
    .string({ error: (issue) => (issue.input === undefined ? required : givenOnce(name)) })
    .regex(ADDRESS_PATTERN, {
      error: (issue) =>
        issue.input === '' ? required : `${name} must be "0x" followed by 40 hexadecimal characters (got "${shown(issue.input)}")`,
    })
    .transform((value) => value.toLowerCase())
    .meta({ description: `"0x" followed by 40 hexadecimal characters, any case.`, example: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' })
}

/** A transaction hash in any case, served in lower case. */
export function txHashParam(name: string) {
  return z
    .string()
    .regex(TX_HASH_PATTERN, {
      error: (issue) => `${name} must be "0x" followed by 64 hexadecimal characters (got "${shown(issue.input)}")`,
    })
    .transform((value) => value.toLowerCase())
    .meta({ description: '"0x" followed by 64 hexadecimal characters, any case.' })
}

const HOLDING_ID_PATTERN = /^0x[0-9a-fA-F]{40}-0x[0-9a-fA-F]{40}$/

/** `<wallet address>-<token contract address>`, any case. */
export const holdingIdParam = z
  .string()
  .regex(HOLDING_ID_PATTERN, {
    error: (issue) => `id must be a holding id: "<wallet address>-<token contract address>" (got "${shown(issue.input)}")`,
  })
  .transform((id) => parseHoldingId(id)!)
  .meta({
    description: 'The holding id: `<wallet address>-<token contract address>`, any case.',
    example: '0xf2a34f581569e712e97e24c4f6eb28154be9ad99-0x1f9840a85d5af5bf1d1762f925bdaddc4201f984',
  })

/** A value that must not be empty when given (a filter or an opaque token). */
export function nonEmptyParam(name: string) {
  return singleValue(name).min(1, { error: `${name} must not be empty` })
}

/** `offset` where the route must tell "not given" from 0 (GET /swap-transactions: cursor or offset). */
export const optionalOffsetParam = boundedInteger('offset', 0, Number.MAX_SAFE_INTEGER)
  .optional()
  .meta({ description: 'Records to skip (default 0).' })

function unknownParameters(keys: readonly string[], accepted: readonly string[]): string {
  const named = keys.map((key) => JSON.stringify(key)).join(', ')
  const what = keys.length === 1 ? `Unknown query parameter ${named}` : `Unknown query parameters ${named}`
  return accepted.length === 0
    ? `${what}: this endpoint takes no query parameters`
    : `${what}: this endpoint accepts ${accepted.join(', ')}`
}

/** The query parameters of an endpoint: any other one is a 400 naming it and listing these. */
export function strictQuery<Shape extends z.ZodRawShape>(shape: Shape) {
  const accepted = Object.keys(shape)
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownParameters(issue.keys, accepted) : undefined),
  })
}
