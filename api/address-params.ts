import { ADDRESS_PATTERN } from '../shared/platform/hex-patterns.js'

/** Whether a token id is shaped like an address (then it may name a token without metadata by its address). */
export function isAddress(value: string): boolean {
  return ADDRESS_PATTERN.test(value)
}
