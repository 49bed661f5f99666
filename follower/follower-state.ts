import { redisKey, type Redis } from '../shared/platform/redis.js'
import type { SwapRetractionRecord } from '../shared/records/records.js'
import type { FollowedPriceRecord } from './trade-prices.js'

/**
 * A block of the unfinalized window, with what would retract its swaps if it were orphaned,
 * and what waits for it to be final: its trades' price records (a price record cannot be
 * retracted) and the (wallet, token) pairs whose holdings its swaps changed (holdings are
 * read at the finalized block). Absent in a state written before these were kept.
 */
export interface WindowBlock {
  number: number
  hash: string
  retractions: SwapRetractionRecord[]
  prices?: FollowedPriceRecord[]
  traded?: Array<[string, string]>
}

export interface Checkpoint {
  /** The last block whose records the queue has acknowledged (-1: none yet). */
  number: number
  hash: string | null
}

/** What holds once a step's jobs are acknowledged. */
export interface SettledState {
  checkpoint: Checkpoint
  /** The blocks above the finalized head, oldest first (the checkpoint's block last). */
  window: WindowBlock[]
  prices: Record<string, number>
}

export interface FollowerState extends SettledState {
  /**
   * Written before a step's jobs are sent: those jobs and the state that holds once they
   * are acknowledged. A follower that finds it on restart does the step again from the
   * checkpoint, retracting first the swaps of the step's unfinalized blocks (they may be
   * stored, and orphaned since): see ChainFollower.undoPendingStep.
   */
  pending: { jobIds: string[]; next: SettledState } | null
}

/** The follower's checkpoint and window in Redis, beside the queue its jobs go through. */
export class FollowerStateStore {
  private readonly key: string

  constructor(
    private readonly redis: Redis,
    prefix: string,
    chainId: number,
  ) {
    this.key = redisKey(prefix, 'follower', String(chainId), 'state')
  }

  async load(): Promise<FollowerState | null> {
    const raw = await this.redis.get(this.key)
    return raw === null ? null : (JSON.parse(raw) as FollowerState)
  }

  async save(state: FollowerState): Promise<void> {
    await this.redis.set(this.key, JSON.stringify(state))
  }
}
