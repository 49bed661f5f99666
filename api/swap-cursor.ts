import { createHash } from 'node:crypto'
import { LOWER_TX_HASH_PATTERN } from '../shared/platform/hex-patterns.js'
import { badRequest } from './http-error.js'

/**
 * Keyset position in the swaps order (newest first, then hash, then chain): the last
 * swap of a page. Opaque to clients (base64url of JSON); it carries a fingerprint of the
 * query it came from, so a cursor used with other filters is a 400, not a silent skip.
 */
export interface SwapCursor {
  timestampMs: number
  hash: string
  chainId: number
}

interface Wire {
  v: 1
  t: number
  h: string
  c: number
  q: string
}

/** What a cursor is bound to: the range and the filters as the client gave them. */
export function queryFingerprint(parts: readonly (string | number | undefined)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16)
}

export function encodeSwapCursor(cursor: SwapCursor, fingerprint: string): string {
  const wire: Wire = { v: 1, t: cursor.timestampMs, h: cursor.hash, c: cursor.chainId, q: fingerprint }
  return Buffer.from(JSON.stringify(wire)).toString('base64url')
}

export function decodeSwapCursor(raw: string, fingerprint: string): SwapCursor {
  let wire: Partial<Wire> | null = null
  try {
    if (/^[A-Za-z0-9_-]{1,512}$/.test(raw)) wire = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Wire>
  } catch {
    wire = null
  }
  if (
    wire === null ||
    typeof wire !== 'object' ||
    wire.v !== 1 ||
    !Number.isSafeInteger(wire.t) ||
    typeof wire.h !== 'string' ||
    !LOWER_TX_HASH_PATTERN.test(wire.h) ||
    !Number.isSafeInteger(wire.c) ||
    typeof wire.q !== 'string'
  ) {
    throw badRequest('cursor is not a cursor this service gave out (take it from pagination.next_cursor)')
  }
  if (wire.q !== fingerprint) {
    throw badRequest('cursor belongs to another query: repeat start_time, end_time, address and token_id as they were')
  }
  return { timestampMs: wire.t!, hash: wire.h, chainId: wire.c! }
}
