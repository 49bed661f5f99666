import { ADDRESS_PATTERN } from '../shared/hex-patterns.js'
import { addressParam, txHashParam } from './contract/parameters.js'
import { parseWith } from './contract/request-parsing.js'

export function isAddress(value: string): boolean {
  return ADDRESS_PATTERN.test(value)
}

/** An address in any case (EIP-55 or lower), returned in lower case; anything else is a 400 (the contract's message). */
export function parseAddress(value: string | undefined, name: string): string {
  return parseWith(addressParam(name), value)
}

/** A transaction hash in any case, returned in lower case; anything else is a 400. */
export function parseTxHash(value: string, name: string): string {
  return parseWith(txHashParam(name), value)
}
