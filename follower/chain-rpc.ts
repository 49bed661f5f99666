import { createPublicClient, http, type PublicClient } from 'viem'
import type { Logger } from '../shared/platform/logger.js'
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
  /** For requests that should go out on their own, side by side, not in one batch. */
  private readonly unbatched: PublicClient
  private receiptsSupported = true
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
    this.unbatched = createPublicClient({ transport: http(url, { batch: false, retryCount: 0, timeout: timeoutMs }), cacheTime: 0 })
  }

  /** Ends every retry loop (a stop during an outage must not wait for the node). */
  halt(): void {
    this.halted = true
  }

  get isHalted(): boolean {
    return this.halted
  }

  /** A raw request, retried until it succeeds (or `retryWhile` says stop, or the client is halted). */
  async call<T>(method: string, params: unknown[], retryWhile: () => boolean = () => true, client: PublicClient = this.client): Promise<T> {
    let delay = 100
    for (;;) {
      try {
        const result = (await client.request({ method, params } as never)) as T
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

  /**
   * The followed events of [from, to]; throws the node's error (the caller shrinks the
   * range). A request of its own: a large answer must not fail the small calls a batch
   * would have put beside it (viem refuses a response body over 10 MB as a whole).
   */
  async logs(from: number, to: number): Promise<RawLog[]> {
    return (await this.unbatched.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: hex(from), toBlock: hex(to), topics: [FOLLOWED_TOPICS] }],
    } as never)) as RawLog[]
  }

  /**
   * The sender of each transaction (by hash) of blocks `numbers`, and each block's time (by
   * block hash). Senders come from the blocks' receipts (`eth_getBlockReceipts`, about half
   * the node's work of full transaction objects on anvil), or from the blocks with their
   * transactions on a node without that method. One request per block, `SENDER_READS` in
   * flight: a node answers a JSON-RPC batch one call after the other, separate requests side
   * by side.
   */
  async blocksWithSenders(numbers: readonly number[]): Promise<BlockSenders> {
    const senders = new Map<string, string>()
    const times = new Map<string, number>()
    const headers = this.headers(numbers)
    await inParallel(numbers, SENDER_READS, async (n) => {
      for (const tx of await this.sendersOf(n)) senders.set(tx.hash.toLowerCase(), tx.from.toLowerCase())
    })
    for (const h of await headers) if (h) times.set(h.hash, h.timestamp)
    return { senders, times }
  }

  private async sendersOf(n: number): Promise<Array<{ hash: string; from: string }>> {
    if (this.receiptsSupported) {
      try {
        const receipts = await this.call<Array<{ transactionHash: string; from: string }> | null>('eth_getBlockReceipts', [hex(n)], () => true, this.unbatched)
        return (receipts ?? []).map((r) => ({ hash: r.transactionHash, from: r.from }))
      } catch (err) {
        if (!isUnsupportedMethod(err)) throw err
        this.receiptsSupported = false
        this.logger.info('the node has no eth_getBlockReceipts: reading senders from full blocks', { url: this.url })
      }
    }
    const block = await this.call<{ transactions: Array<{ hash: string; from: string }> } | null>('eth_getBlockByNumber', [hex(n), true], () => true, this.unbatched)
    return block?.transactions ?? []
  }
}

export interface BlockSenders {
  /** Transaction hash → sender, both lower case. */
  senders: Map<string, string>
  /** Block hash → block time (ms since the epoch). */
  times: Map<string, number>
}

/** Requests for senders in flight at once (per-block reads; see ChainRpc.blocksWithSenders). */
const SENDER_READS = 8

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
}

/** The node does not serve the method (JSON-RPC -32601 or a provider's wording of it). */
function isUnsupportedMethod(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === -32601 || /method not found|not supported|unsupported method|does not exist|not available|unknown method/i.test(errorText(err))
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
