import { createPublicClient, http, type PublicClient } from 'viem'
import type { Logger } from '../shared/logger.js'
import { FOLLOWED_TOPICS, type RawLog } from './chain-logs.js'

/** A block header as the follower keeps it. */
export interface BlockHeader {
  number: number
  hash: string
  parentHash: string
  /** Milliseconds since the epoch. */
  timestamp: number
}

interface RawBlock {
  number: string
  hash: string
  parentHash: string
  timestamp: string
}

const hex = (n: number) => `0x${n.toString(16)}`

/**
 * JSON-RPC reads over viem's HTTP transport (requests issued together go out as one
 * batch). Every call is retried with exponential backoff while the node is unreachable
 * or errs transiently (logged once per outage), so a node that goes away and comes back
 * only pauses the follower.
 */
export class ChainRpc {
  readonly client: PublicClient
  private outageSince: number | null = null
  /** Set when the follower stops: a request failing during an outage is not retried any more. */
  private halted = false

  constructor(
    readonly url: string,
    private readonly logger: Logger,
    private readonly timeoutMs = 15_000,
  ) {
    this.client = createPublicClient({
      transport: http(url, { batch: { batchSize: 500, wait: 0 }, retryCount: 0, timeout: timeoutMs }),
      cacheTime: 0,
    })
  }

  /** Ends every retry loop (a stop during an outage must not wait for the node). */
  halt(): void {
    this.halted = true
  }

  /** A raw request, retried until it succeeds (or `retryWhile` says stop, or the client is halted). */
  async call<T>(method: string, params: unknown[], retryWhile: () => boolean = () => true): Promise<T> {
    let delay = 100
    for (;;) {
      try {
        const result = (await this.client.request({ method, params } as never)) as T
        if (this.outageSince !== null) {
          this.logger.info('node answers again', { url: this.url, downMs: Date.now() - this.outageSince })
          this.outageSince = null
        }
        return result
      } catch (err) {
        if (!isTransient(err) || this.halted || !retryWhile()) throw err
        if (this.outageSince === null) {
          this.outageSince = Date.now()
          this.logger.warn('node unreachable or failing: retrying with backoff', { url: this.url, method, err })
        }
        await new Promise((r) => setTimeout(r, delay))
        delay = Math.min(delay * 2, 5_000)
      }
    }
  }

  async chainId(): Promise<number> {
    return Number(await this.call<string>('eth_chainId', []))
  }

  async head(): Promise<number> {
    return Number(await this.call<string>('eth_blockNumber', []))
  }

  /** Headers of `numbers` (null where the node has no such block). */
  async headers(numbers: readonly number[]): Promise<Array<BlockHeader | null>> {
    const blocks = await Promise.all(numbers.map((n) => this.call<RawBlock | null>('eth_getBlockByNumber', [hex(n), false])))
    return blocks.map((b) =>
      b === null
        ? null
        : { number: Number(b.number), hash: b.hash, parentHash: b.parentHash, timestamp: Number(b.timestamp) * 1000 },
    )
  }

  /** The followed events of [from, to]; throws the node's error (the caller shrinks the range). */
  async logs(from: number, to: number): Promise<RawLog[]> {
    return (await this.client.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: hex(from), toBlock: hex(to), topics: [FOLLOWED_TOPICS] }],
    } as never)) as RawLog[]
  }

  /**
   * Blocks with their transactions: the sender of each transaction (by hash) and each
   * block's time (by block hash). One call per block rather than one per transaction.
   */
  async blocksWithSenders(numbers: readonly number[]): Promise<{ senders: Map<string, string>; times: Map<string, number> }> {
    const blocks = await Promise.all(
      numbers.map((n) => this.call<(RawBlock & { transactions: Array<{ hash: string; from: string }> }) | null>('eth_getBlockByNumber', [hex(n), true])),
    )
    const senders = new Map<string, string>()
    const times = new Map<string, number>()
    for (const b of blocks) {
      if (!b) continue
      times.set(b.hash, Number(b.timestamp) * 1000)
      for (const tx of b.transactions) senders.set(tx.hash.toLowerCase(), tx.from.toLowerCase())
    }
    return { senders, times }
  }
}

/** Network failures, timeouts and 5xx/429 are worth retrying; a node's refusal of the request is not. */
export function isTransient(err: unknown): boolean {
  const text = errorText(err)
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket|timed? ?out|took too long|HTTP request failed|status: (5\d\d|429)|rate limit|ENOTFOUND|EAI_AGAIN|network/i.test(text)
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const details = (err as Error & { details?: string; shortMessage?: string }).details ?? ''
    return `${err.message} ${details} ${err.cause instanceof Error ? err.cause.message : ''}`
  }
  return String(err)
}
