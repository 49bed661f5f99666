import type { Logger } from '../shared/logger.js'
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
 * block (`balanceOf`), which holds every one of those trades.
 */
export class FinalizedRecords {
  constructor(
    private readonly rpc: ChainRpc,
    private readonly wallets: HoldingWallets,
    private readonly holdings: HoldingsReader,
    private readonly logger: Logger,
  ) {}

  async of(blocks: readonly FinalityWork[], finalizedNumber: number): Promise<{ prices: FollowedPriceRecord[]; holdings: FollowedHoldingRecord[] }> {
    const prices = blocks.flatMap((b) => b.prices ?? [])
    const pairs = await this.wallets.select(blocks.flatMap((b) => b.traded ?? []))
    if (pairs.length === 0) return { prices, holdings: [] }
    const started = performance.now()
    const [header] = await this.rpc.headers([finalizedNumber])
    if (!header) throw new Error(`the finalized block ${finalizedNumber} is not on the node`)
    const holdings = await this.holdings.read(pairs, { number: header.number, timestamp: header.timestamp })
    this.logger.debug('holdings read', { block: finalizedNumber, pairs: pairs.length, ms: Math.round(performance.now() - started) })
    return { prices, holdings }
  }
}
