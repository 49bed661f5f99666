import type { Logger } from '../shared/platform/logger.js'
import type { ChainRpc } from './chain-rpc.js'
import type { HoldingWallets } from './holding-wallets.js'
import type { FollowedHoldingRecord, HoldingsReader } from './holdings-reader.js'
import type { ExtractedSwap } from './swap-extraction.js'
import type { FollowedPriceRecord } from './trade-prices.js'

/** What a block leaves for when it is final: its trades' prices and the (wallet, token) pairs it traded. */
export interface FinalityWork {
  prices?: readonly FollowedPriceRecord[]
  traded?: ReadonlyArray<readonly [string, string]>
}

/** Each swap's wallet with both its tokens, by block hash. */
export function tradedByBlock(swaps: readonly ExtractedSwap[]): Map<string, Array<[string, string]>> {
  const out = new Map<string, Array<[string, string]>>()
  for (const { record, blockHash } of swaps) {
    const list = out.get(blockHash) ?? []
    list.push([record.wallet_address, record.token_sold.contract_address], [record.wallet_address, record.token_bought.contract_address])
    out.set(blockHash, list)
  }
  return out
}

/**
 * The records of blocks that became final: their trades' price records as extracted, and
 * the holdings of the kept wallets in the tokens they traded, read at the newest finalized
 * block (`balanceOf`), which holds every one of those trades. A pair already read at that
 * same block for an earlier step is not read again (its record went with that step, and
 * the balance holds this step's trades too): a history run, whose steps mostly share one
 * finalized block, reads each pair about once. After a step fails, `forget()`: its records
 * may never have been stored.
 */
export class FinalizedRecords {
  private readAt: { block: number; pairs: Set<string> } = { block: -1, pairs: new Set() }

  constructor(
    private readonly rpc: ChainRpc,
    private readonly wallets: HoldingWallets,
    private readonly holdings: HoldingsReader,
    private readonly logger: Logger,
  ) {}

  async of(blocks: readonly FinalityWork[], finalizedNumber: number): Promise<{ prices: FollowedPriceRecord[]; holdings: FollowedHoldingRecord[] }> {
    const prices = blocks.flatMap((b) => b.prices ?? [])
    if (this.readAt.block !== finalizedNumber) this.readAt = { block: finalizedNumber, pairs: new Set() }
    const readAt = this.readAt
    const pairs = (await this.wallets.select(blocks.flatMap((b) => b.traded ?? []))).filter(([w, t]) => !readAt.pairs.has(`${w}:${t}`))
    if (pairs.length === 0) return { prices, holdings: [] }
    const started = performance.now()
    const [header] = await this.rpc.headers([finalizedNumber])
    if (!header) throw new Error(`the finalized block ${finalizedNumber} is not on the node`)
    const holdings = await this.holdings.read(pairs, { number: header.number, timestamp: header.timestamp })
    for (const [w, t] of pairs) readAt.pairs.add(`${w}:${t}`)
    this.logger.debug('holdings read', { block: finalizedNumber, pairs: pairs.length, ms: Math.round(performance.now() - started) })
    return { prices, holdings }
  }

  forget(): void {
    this.readAt = { block: -1, pairs: new Set() }
  }
}
