import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { listSet } from '../shared/storage/list-param.js'
import type { Token, TokenRef } from '../shared/records/domain.js'
import type { Logger } from '../shared/platform/logger.js'
import type { Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'
import { parseTokensChanged, tokensChangedChannel, type TokensChanged } from '../shared/records/token-events.js'
import type { Page } from './pagination.js'
import { TokenIndex } from './token-index.js'

export interface TokenDirectoryOptions {
  clickhouse: ClickHouseClient
  tables: Tables
  /** The API's Redis connection: the directory listens on a duplicate of it. */
  redis: Redis
  redisPrefix: string
  /** Every token is reloaded this often, whatever the events say. */
  refreshMs: number
  logger: Logger
}

interface TokenRow {
  contract_address: string
  id: string
  name: string
  symbol: string
  decimals: number | string
}

/** A token's id is the producer's, or else derived from its address (shared/platform/ids.ts). */
function toToken(row: TokenRow): Token {
  return {
    id: row.id || row.contract_address,
    name: row.name,
    symbol: row.symbol,
    decimals: Number(row.decimals),
    contract_address: row.contract_address,
  }
}

/** How long a read waits for a change already announced to be loaded before serving what it has. */
const FRESH_WAIT_MS = 1_000
/** How long start() waits for the subscription (a Redis out of reach does not hold the API back). */
const SUBSCRIBE_WAIT_MS = 2_000
/** More addresses than this waiting to be reloaded: reload everything instead. */
const MAX_TARGETED_RELOAD = 1_000

/**
 * Every token's metadata (the latest version per contract address), held in memory by
 * the API so no read goes to ClickHouse for it. Ingestion announces the addresses whose
 * rows it inserted (shared/records/token-events.ts); the directory reloads those. Pub/sub keeps
 * nothing for a deaf listener, so it reloads everything whenever its subscription is
 * (re)established and every `refreshMs` as a backstop. Reloads run one at a time, so a
 * later one never loses to an earlier one.
 */
export class TokenDirectory {
  private readonly index = new TokenIndex()
  private readonly subscriber: Redis
  private readonly channel: string
  private readonly timer: NodeJS.Timeout
  private wantAll = false
  private readonly wanted = new Set<string>()
  private reloading = false
  private closed = false
  /** Announced changes heard / loaded (counters; reads wait until loaded catches up). */
  private heard = 0
  private loaded = 0
  private waiters: Array<{ upTo: number; resolve: () => void }> = []
  private subscriberDown = false
  private reloads = 0

  private constructor(private readonly options: TokenDirectoryOptions) {
    this.channel = tokensChangedChannel(options.redisPrefix)
    this.subscriber = options.redis.duplicate({
      connectionName: `${options.redisPrefix}:token-directory`,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
    })
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.request(parseTokensChanged(message), true)
    })
    this.subscriber.on('error', (err: Error) => {
      if (!this.subscriberDown) options.logger.warn('token directory: redis subscription lost', { err })
      this.subscriberDown = true
    })
    this.timer = setInterval(() => this.request({ all: true }, false), options.refreshMs)
    this.timer.unref()
  }

  /** Loads every token, then listens (as far as Redis lets it within a moment). */
  static async start(options: TokenDirectoryOptions): Promise<TokenDirectory> {
    const directory = new TokenDirectory(options)
    try {
      directory.index.replaceAll(await directory.loadAll())
    } catch (err) {
      await directory.close()
      throw err
    }
    await directory.listen()
    return directory
  }

  get(address: string): Token | undefined {
    return this.index.get(address)
  }

  /** Ordered by symbol, then contract address, with the exact total. */
  list(page: Page): { tokens: Token[]; total: number } {
    return this.index.list(page)
  }

  /** See TokenIndex.addressesForTokenId. */
  addressesForTokenId(tokenId: string, addressShaped: boolean): string[] {
    return this.index.addressesForTokenId(tokenId, addressShaped)
  }

  /** The token as swaps and holdings embed it (null fields for an unknown one). */
  ref(address: string): TokenRef {
    return this.index.ref(address)
  }

  get size(): number {
    return this.index.size
  }

  /** Grows with every reload: what was built from the directory at one version may be kept until it moves. */
  get version(): number {
    return this.reloads
  }

  /**
   * Resolves once every change announced so far is loaded (or, should ClickHouse be slow,
   * after FRESH_WAIT_MS): a read that follows an announcement sees it. Costs nothing when
   * nothing is pending.
   */
  fresh(): Promise<void> {
    if (this.loaded >= this.heard) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FRESH_WAIT_MS)
      this.waiters.push({
        upTo: this.heard,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    })
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.timer)
    this.subscriber.removeAllListeners('message')
    this.subscriber.disconnect()
    this.settle(Number.POSITIVE_INFINITY)
  }

  /** Subscribes now and after every reconnection, then catches up on what it missed. */
  private listen(): Promise<void> {
    let firstAttempt: () => void = () => {}
    const settled = new Promise<void>((resolve) => (firstAttempt = resolve))
    const subscribe = () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          if (this.subscriberDown) this.options.logger.info('token directory: redis subscription restored')
          this.subscriberDown = false
          // Changes announced while nobody listened are only in ClickHouse.
          this.request({ all: true }, true)
          firstAttempt()
        },
        (err: unknown) => {
          this.options.logger.warn('token directory: could not subscribe', { err })
          firstAttempt()
        },
      )
    }
    this.subscriber.on('ready', subscribe)
    if (this.subscriber.status === 'ready') subscribe()
    this.subscriber.once('error', () => firstAttempt())
    const timer = setTimeout(firstAttempt, SUBSCRIBE_WAIT_MS)
    return settled.finally(() => clearTimeout(timer))
  }

  private request(change: TokensChanged, announced: boolean): void {
    if (this.closed) return
    if ('all' in change) this.wantAll = true
    else for (const address of change.addresses) this.wanted.add(address)
    if (this.wanted.size > MAX_TARGETED_RELOAD) this.wantAll = true
    if (announced) this.heard++
    void this.reload()
  }

  private async reload(): Promise<void> {
    if (this.reloading) return
    this.reloading = true
    try {
      while (!this.closed && (this.wantAll || this.wanted.size > 0)) {
        // Everything requested up to here is covered by this load.
        const covers = this.heard
        const all = this.wantAll
        const addresses = [...this.wanted]
        this.wantAll = false
        this.wanted.clear()
        try {
          if (all) this.index.replaceAll(await this.loadAll())
          else this.index.apply(addresses, await this.load(addresses))
          this.reloads++
        } catch (err) {
          // Served as it was; the next periodic reload catches up.
          this.options.logger.warn('token directory: reload failed', { err, all, addresses: addresses.length })
        }
        this.settle(covers)
      }
    } finally {
      this.reloading = false
    }
  }

  private settle(upTo: number): void {
    this.loaded = Math.max(this.loaded, upTo)
    const ready = this.waiters.filter((w) => w.upTo <= this.loaded)
    this.waiters = this.waiters.filter((w) => w.upTo > this.loaded)
    for (const waiter of ready) waiter.resolve()
  }

  private loadAll(): Promise<Token[]> {
    return this.query(`SELECT contract_address, id, name, symbol, decimals FROM ${this.options.tables.tokens} FINAL`, {})
  }

  private load(addresses: string[]): Promise<Token[]> {
    return this.query(
      `SELECT contract_address, id, name, symbol, decimals FROM ${this.options.tables.tokens} FINAL
       WHERE contract_address IN ${listSet('addresses')}`,
      { addresses },
    )
  }

  private async query(query: string, query_params: Record<string, unknown>): Promise<Token[]> {
    const rs = await this.options.clickhouse.query({ query, query_params, format: 'JSONEachRow' })
    const rows = await rs.json<TokenRow>()
    return rows.map(toToken)
  }
}
