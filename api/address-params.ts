import { ADDRESS_PATTERN as ADDRESS, TX_HASH_PATTERN as TX_HASH } from '../shared/hex-patterns.js'
import { badRequest } from './http-error.js'

export function isAddress(value: string): boolean {
  return ADDRESS.test(value)
}

/** An address in any case (EIP-55 or lower), returned in lower case; anything else is a 400. */
export function parseAddress(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw badRequest(`${name} is required`)
  if (!ADDRESS.test(value)) {
    throw badRequest(`${name} must be "0x" followed by 40 hexadecimal characters (got "${value}")`)
  }
  return value.toLowerCase()
}

/** A transaction hash in any case, returned in lower case; anything else is a 400. */
export function parseTxHash(value: string, name: string): string {
  if (!TX_HASH.test(value)) {
    throw badRequest(`${name} must be "0x" followed by 64 hexadecimal characters (got "${value}")`)
  }
  return value.toLowerCase()
}
