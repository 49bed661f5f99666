import type { Logger } from '../shared/platform/logger.js'
import { errorText, isTransient, type ChainRpc } from './chain-rpc.js'

/** A `holding` record of shared/records/records.ts as the follower builds it. */
export interface FollowedHoldingRecord {
  wallet_address: string
  contract_address: string
  balance_raw: string
  value_usd: number | null
  as_of: number
}

/** The finalized block the balances are read at. */
export interface FinalizedBlock {
  number: number
  /** Milliseconds since the epoch: the holdings' `as_of`. */
  timestamp: number
}

const BALANCE_OF = '0x70a08231'

/**
 * Holdings read from the chain: ERC-20 `balanceOf(wallet)` at a finalized block (the calls
 * go out together, batched by the transport). A token whose `balanceOf` reverts or returns
 * nothing gets no holding (logged once per token; a node without the block's state fails
 * the same way, hence the error text in the log); a node failing transiently fails the
 * read, and the caller's step is retried. USD value: the balance at the token's current
 * price when its price and decimals are known, else null.
 */
export class HoldingsReader {
  private readonly unreadable = new Set<string>()

  constructor(
    private readonly rpc: ChainRpc,
    private readonly logger: Logger,
    private readonly valueOf: (token: string, balance: bigint) => number | null,
  ) {}

  async read(pairs: ReadonlyArray<readonly [string, string]>, block: FinalizedBlock): Promise<FollowedHoldingRecord[]> {
    const tag = `0x${block.number.toString(16)}`
    const balances = await Promise.all(pairs.map(([wallet, token]) => this.balanceOf(wallet, token, tag)))
    const records: FollowedHoldingRecord[] = []
    pairs.forEach(([wallet, token], i) => {
      const balance = balances[i]
      if (balance === null || balance === undefined) return
      records.push({ wallet_address: wallet, contract_address: token, balance_raw: balance.toString(), value_usd: this.valueOf(token, balance), as_of: block.timestamp })
    })
    return records
  }

  private async balanceOf(wallet: string, token: string, blockTag: string): Promise<bigint | null> {
    const data = `${BALANCE_OF}${wallet.slice(2).padStart(64, '0')}`
    try {
      const out = await this.rpc.call<string>('eth_call', [{ to: token, data }, blockTag])
      if (out.length >= 66) return BigInt(out.slice(0, 66))
      this.unreadableToken(token, 'balanceOf() returned nothing')
      return null
    } catch (err) {
      if (isTransient(err)) throw err
      this.unreadableToken(token, `balanceOf() failed: ${errorText(err).trim().slice(0, 300)}`)
      return null
    }
  }

  private unreadableToken(token: string, reason: string): void {
    if (this.unreadable.has(token)) return
    this.unreadable.add(token)
    this.logger.warn('no holding: the token balance is unreadable', { token, reason })
  }
}
