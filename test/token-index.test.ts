import { describe, expect, it } from 'vitest'
import type { Token } from '../shared/records/domain.js'
import { compareBytes, TokenIndex } from '../api/token-index.js'
import { addressFor } from './support/factories.js'

const token = (label: string, symbol: string, id?: string): Token => {
  const contract_address = addressFor(label)
  return { id: id ?? contract_address, name: `Token ${label}`, symbol, decimals: 18, contract_address }
}

/** The order ClickHouse gives `ORDER BY symbol, contract_address`: bytes of UTF-8. */
function byBytes(tokens: Token[]): Token[] {
  const key = (t: Token) => Buffer.concat([Buffer.from(t.symbol), Buffer.from([0]), Buffer.from(t.contract_address)])
  return [...tokens].sort((a, b) => Buffer.compare(key(a), key(b)))
}

describe('TokenIndex', () => {
  it('orders by symbol then address as bytes of UTF-8, also after piecemeal updates', () => {
    const symbols = ['A', 'a', 'B', 'AB', '', 'É', 'ｚ', '😀', '\uE000', 'Z', 'A']
    const tokens = symbols.map((s, i) => token(`t${i}`, s))
    const index = new TokenIndex()
    index.replaceAll(tokens.slice(0, 5))
    index.apply(tokens.slice(5).map((t) => t.contract_address), tokens.slice(5))
    expect(index.list({ limit: 500, offset: 0 }).tokens).toEqual(byBytes(tokens))
    // Renamed, and one dropped: still in order, total exact.
    const renamed = { ...tokens[0]!, symbol: 'ZZ' }
    index.apply([renamed.contract_address, tokens[3]!.contract_address], [renamed])
    const expected = byBytes([renamed, ...tokens.slice(1, 3), ...tokens.slice(4)])
    expect(index.list({ limit: 500, offset: 0 })).toEqual({ tokens: expected, total: expected.length })
    expect(index.list({ limit: 3, offset: 2 }).tokens).toEqual(expected.slice(2, 5))
  })

  it('compareBytes agrees with Buffer.compare around surrogates', () => {
    const samples = ['', 'a', 'ab', '\uFFFF', '\uE000', '😀', '😁', 'a😀', 'a\uFFFF', 'é']
    for (const a of samples) {
      for (const b of samples) expect(Math.sign(compareBytes(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))))
    }
  })

  it('names addresses by token id as the repository did: producer ids, derived ids, unknown addresses', () => {
    const plain = token('plain', 'P')
    const custom = token('custom', 'C', 'custom-id')
    const twin = token('twin', 'T', 'custom-id')
    const renamedAway = token('renamed-away', 'R', 'other-id')
    const index = new TokenIndex()
    index.replaceAll([plain, custom, twin, renamedAway])
    expect(index.addressesForTokenId('custom-id', false)).toEqual([custom.contract_address, twin.contract_address].sort())
    expect(index.addressesForTokenId(plain.contract_address, true)).toEqual([plain.contract_address])
    expect(index.addressesForTokenId(plain.contract_address.toUpperCase().replace('0X', '0x'), true)).toEqual([plain.contract_address])
    // An address-shaped id of a token without metadata names that address.
    const unknown = addressFor('unknown')
    expect(index.addressesForTokenId(unknown, true)).toEqual([unknown])
    // A token with a producer id is not named by its address.
    expect(index.addressesForTokenId(renamedAway.contract_address, true)).toEqual([])
    expect(index.addressesForTokenId('nothing', false)).toEqual([])
  })

  it('ref: the token, or null fields for an unknown address', () => {
    const t = token('ref', 'REF', 'ref-id')
    const index = new TokenIndex()
    index.replaceAll([t])
    expect(index.ref(t.contract_address)).toEqual(t)
    const unknown = addressFor('nobody')
    expect(index.ref(unknown)).toEqual({ id: unknown, name: null, symbol: null, decimals: null, contract_address: unknown })
  })
})
