import type { Logger } from '../shared/platform/logger.js'
import type { RecordInput } from '../shared/records/records.js'
import { isTransient, type ChainRpc } from './chain-rpc.js'

const SELECTORS = { name: '0x06fdde03', symbol: '0x95d89b41', decimals: '0x313ce567' } as const

export interface TokenMetadataResult {
  /** The token record to deliver; absent when the token's decimals cannot be read. */
  record?: RecordInput<'token'>
  /** What fell back, for the log. */
  fallbacks: string[]
}

/**
 * ERC-20 metadata read by contract calls. `name`/`symbol` may be a string (the standard)
 * or a bytes32 (early tokens such as MKR); either may revert. Fallbacks: a missing symbol
 * takes the name and vice versa, both missing take the address; a token whose
 * `decimals()` reverts gets no token record at all (its amounts stay raw, served with null
 * metadata), because any guessed decimals would make every adjusted amount and USD value wrong.
 */
export class TokenMetadataReader {
  private readonly seen = new Map<string, TokenMetadataResult>()

  constructor(
    private readonly rpc: ChainRpc,
    private readonly chainId: number,
    private readonly logger: Logger,
  ) {}

  has(address: string): boolean {
    return this.seen.has(address)
  }

  known(address: string): TokenMetadataResult | undefined {
    return this.seen.get(address)
  }

  async read(address: string): Promise<TokenMetadataResult> {
    const hit = this.seen.get(address)
    if (hit) return hit
    const [nameHex, symbolHex, decimalsHex] = await Promise.all([
      this.call(address, SELECTORS.name),
      this.call(address, SELECTORS.symbol),
      this.call(address, SELECTORS.decimals),
    ])
    const fallbacks: string[] = []
    let name = decodeText(nameHex)
    let symbol = decodeText(symbolHex)
    const decimals = decodeSmallUint(decimalsHex)
    if (nameHex !== null && name !== null && isBytes32(nameHex)) fallbacks.push('name() returned bytes32')
    if (symbolHex !== null && symbol !== null && isBytes32(symbolHex)) fallbacks.push('symbol() returned bytes32')
    if (name === null && symbol === null) {
      name = address
      symbol = `${address.slice(0, 8)}…`
      fallbacks.push('name() and symbol() unreadable: the address stands in')
    } else if (name === null) {
      name = symbol!
      fallbacks.push('name() unreadable: the symbol stands in')
    } else if (symbol === null) {
      symbol = name.slice(0, 64)
      fallbacks.push('symbol() unreadable: the name stands in')
    }
    let result: TokenMetadataResult
    if (decimals === null) {
      fallbacks.push('decimals() unreadable: no token record (amounts stay raw)')
      result = { fallbacks }
    } else {
      result = { record: { contract_address: address, name: name!.slice(0, 256), symbol: symbol!.slice(0, 64), decimals, chain_id: this.chainId }, fallbacks }
    }
    if (fallbacks.length > 0) this.logger.info('token metadata fallback', { token: address, fallbacks })
    this.seen.set(address, result)
    return result
  }

  /** The call's return data, or null when it reverts or returns nothing. */
  private async call(address: string, data: string): Promise<string | null> {
    try {
      const out = await this.rpc.call<string>('eth_call', [{ to: address, data }, 'latest'], () => true)
      return out === '0x' ? null : out
    } catch (err) {
      if (isTransient(err)) throw err
      return null
    }
  }
}

function isBytes32(result: string): boolean {
  return result.length === 66
}

/** An ABI `string`, or a bytes32 holding text (NUL-padded); null if neither or empty. */
export function decodeText(result: string | null): string | null {
  if (result === null) return null
  const bytes = Buffer.from(result.slice(2), 'hex')
  let text: string
  if (bytes.length === 32) {
    text = bytes.toString('utf8').replace(/\0+$/, '')
  } else {
    if (bytes.length < 64) return null
    const offset = Number(BigInt(`0x${bytes.subarray(0, 32).toString('hex')}`))
    if (offset + 32 > bytes.length) return null
    const length = Number(BigInt(`0x${bytes.subarray(offset, offset + 32).toString('hex')}`))
    if (offset + 32 + length > bytes.length) return null
    text = bytes.subarray(offset + 32, offset + 32 + length).toString('utf8')
  }
  // Control characters and replacement characters make no symbol.
  text = text.replace(/[\u0000-\u001f\u007f\ufffd]/g, '').trim()
  return text === '' ? null : text
}

function decodeSmallUint(result: string | null): number | null {
  if (result === null || result.length < 66) return null
  const v = BigInt(result.slice(0, 66))
  return v <= 255n ? Number(v) : null
}
