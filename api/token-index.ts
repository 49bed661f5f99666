import type { Token, TokenRef } from '../shared/records/domain.js'
import type { Page } from './pagination.js'

/**
 * Every token with metadata, in memory: by address, by (effective) id, and in the order
 * GET /tokens serves them (symbol, then contract address, compared as ClickHouse compares
 * Strings: byte by byte in UTF-8). The tokens it holds are frozen; callers never change them.
 */
export class TokenIndex {
  private byAddress = new Map<string, Token>()
  private byId = new Map<string, Set<string>>()
  private sorted: Token[] = []

  get size(): number {
    return this.sorted.length
  }

  /** Replaces everything with these tokens (one per address). */
  replaceAll(tokens: readonly Token[]): void {
    this.byAddress = new Map()
    this.byId = new Map()
    for (const token of tokens) this.remember(Object.freeze({ ...token }))
    this.sorted = [...this.byAddress.values()].sort(compareTokens)
  }

  /**
   * The current state of some addresses: `found` holds those that have metadata; an
   * address asked for but not found is dropped.
   */
  apply(addresses: readonly string[], found: readonly Token[]): void {
    const current = new Map(found.map((t) => [t.contract_address, t]))
    for (const address of new Set([...addresses, ...current.keys()])) {
      const previous = this.byAddress.get(address)
      if (previous !== undefined) this.forget(previous)
      const next = current.get(address)
      if (next !== undefined) {
        const frozen = Object.freeze({ ...next })
        this.remember(frozen)
        this.sorted.splice(this.insertionPoint(frozen), 0, frozen)
      }
    }
  }

  get(address: string): Token | undefined {
    return this.byAddress.get(address)
  }

  /** One page in the served order, with the exact total. */
  list(page: Page): { tokens: Token[]; total: number } {
    return { tokens: this.sorted.slice(page.offset, page.offset + page.limit), total: this.sorted.length }
  }

  /**
   * The contract addresses a token_id names: tokens whose id is that value, and, for an
   * address-shaped id, the address itself when no token gives it another id (the derived
   * id of a token without metadata). Sorted.
   */
  addressesForTokenId(tokenId: string, addressShaped: boolean): string[] {
    const addresses = new Set(this.byId.get(tokenId))
    if (addressShaped) {
      const lower = tokenId.toLowerCase()
      for (const address of this.byId.get(lower) ?? []) addresses.add(address)
      if (!this.byAddress.has(lower)) addresses.add(lower)
    }
    return [...addresses].sort()
  }

  /** The token as swaps and holdings embed it: null fields while its metadata is unknown. */
  ref(address: string): TokenRef {
    const token = this.byAddress.get(address)
    if (token === undefined) return { id: address, name: null, symbol: null, decimals: null, contract_address: address }
    return { id: token.id, name: token.name, symbol: token.symbol, decimals: token.decimals, contract_address: address }
  }

  private remember(token: Token): void {
    const previous = this.byAddress.get(token.contract_address)
    if (previous !== undefined) this.unindexId(previous)
    this.byAddress.set(token.contract_address, token)
    let addresses = this.byId.get(token.id)
    if (addresses === undefined) this.byId.set(token.id, (addresses = new Set()))
    addresses.add(token.contract_address)
  }

  private forget(token: Token): void {
    this.byAddress.delete(token.contract_address)
    this.unindexId(token)
    const at = this.insertionPoint(token)
    if (this.sorted[at] === token) this.sorted.splice(at, 1)
    else this.sorted = this.sorted.filter((t) => t !== token) // not where expected: never, but stay correct
  }

  private unindexId(token: Token): void {
    const addresses = this.byId.get(token.id)
    addresses?.delete(token.contract_address)
    if (addresses?.size === 0) this.byId.delete(token.id)
  }

  /** The first position whose token does not sort before `token`. */
  private insertionPoint(token: Token): number {
    let lo = 0
    let hi = this.sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (compareTokens(this.sorted[mid]!, token) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

function compareTokens(a: Token, b: Token): number {
  return compareBytes(a.symbol, b.symbol) || compareBytes(a.contract_address, b.contract_address)
}

/**
 * ClickHouse orders Strings by their bytes. For UTF-8 that is code point order, which
 * JavaScript's code unit order matches except around surrogates (U+D800 and above).
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x < 0xd800 && y < 0xd800) return x - y
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
  }
  return a.length - b.length
}
