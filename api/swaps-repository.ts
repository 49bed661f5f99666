import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { SwapTransaction, TokenRef } from '../shared/records/domain.js'
import { toDecimalAmount } from '../shared/records/amounts.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { SWAP_READ_LIST, type SwapReadRow as SwapRow } from '../shared/storage/schema/swaps-schema.js'
import { MAX_TIMESTAMP_MS } from '../shared/records/records.js'
import type { Tables } from '../shared/storage/tables.js'
import type { Page } from './pagination.js'
import type { SwapCursor } from './swap-cursor.js'
import type { FeedReading } from './feed-watch.js'
import type { SwapHourCounts } from './swap-hour-counts.js'
import type { ReadOptions, VersionedResults } from './versioned-results.js'
import { isServed, servedCondition, type ServedScope } from './served-wallets.js'

export interface SwapFilter {
  /** Inclusive bounds, ms since the epoch. */
  startMs: number
  endMs: number
  walletAddress?: string
  /** Swaps whose sold or bought token is one of these addresses. */
  tokenAddresses?: string[]
}

/** What a list counted by hours reads: its hour counts, and SQL over [start, end] with a further condition. */
interface HourPages {
  counts: SwapHourCounts
  params: Params
  /** The page's rows in ORDER ({limit}, {offset}). */
  page(where: string): string
  /** The same rows by scanning every swap of the page's hours, for pages whose hours hold few swaps. */
  scanPage?(where: string): string
  /** Its keys, to count. */
  keys(where: string): string
}

/**
 * A token page whose hours hold at most this many swaps (all tokens) is read by scanning
 * them in swaps_by_time rather than by its keys from the token path, then its rows by key:
 * on 10M swaps, a page whose four hours hold ~28,000 swaps took 17 ms scanned against
 * 24.5 ms by key, and the scan grows with the hours' swaps while the keys do not.
 */
const SCAN_ROWS = 30_000

export interface SwapsReadOptions {
  /** See SCAN_ROWS; tests set it to 0 or Infinity to read every page one way. */
  scanRows: number
}

/** A swap's key in swaps_by_time. */
export interface SwapKey {
  timestampMs: number
  hash: string
  chainId: number
}

/** Where a page starts: `offset` rows into the range, or just after `cursor`. */
export type PageStart = { offset: number } | { cursor: SwapCursor }

export interface SwapPage {
  swaps: SwapTransaction[]
  total: number
  /** Rows of the range before this page. */
  offset: number
  /** The position after the last row, when rows follow it. */
  next: SwapCursor | null
}

export interface TokenRefs {
  ref(contractAddress: string): TokenRef
}

type Params = Record<string, unknown>

const ORDER = 'timestamp DESC, hash, chain_id'
const KEY = '(timestamp, hash, chain_id)'
const KEY_COLUMNS = 'timestamp, hash, chain_id'
const SELECT_ROW = SWAP_READ_LIST
const IN_RANGE = `timestamp >= fromUnixTimestamp64Milli({start:Int64}, 'UTC')
  AND timestamp <= fromUnixTimestamp64Milli({end:Int64}, 'UTC')`
/** Rows after the cursor in ORDER (newest first, then hash, then chain). */
const AFTER_CURSOR = `timestamp <= fromUnixTimestamp64Milli({cursorTs:Int64}, 'UTC')
  AND (timestamp < fromUnixTimestamp64Milli({cursorTs:Int64}, 'UTC') OR (hash, chain_id) > ({cursorHash:String}, {cursorChain:UInt32}))`
const AT_OR_BEFORE_CURSOR = `timestamp >= fromUnixTimestamp64Milli({cursorTs:Int64}, 'UTC')
  AND (timestamp > fromUnixTimestamp64Milli({cursorTs:Int64}, 'UTC') OR (hash, chain_id) <= ({cursorHash:String}, {cursorChain:UInt32}))`

/**
 * Swaps, one per (chain, hash), newest first, then hash and chain: a unique total order.
 * Every read is exact before and after merges (FINAL on ReplacingMergeTree tables whose
 * retracted versions carry is_deleted), and costs what its page costs:
 * - a time range reads swaps_by_time through its primary key; the total and the hours an
 *   offset skips come from exact per-hour counts (swap-hour-counts.ts), so a page reads
 *   only the hours it lies in;
 * - a wallet filter (with or without a token filter) reads the page's rows from
 *   swap_rows_by_wallet (whole rows, ordered by wallet, then time);
 * - a token filter alone picks the page's keys from swap_legs_by_token (ordered by token,
 *   then time) and reads those rows by key;
 * - a hash is found through swap_locations (every version delivered; FINAL on swaps_by_time keeps the live one).
 * Token metadata comes from memory (the token directory), not from a join. The rows of a
 * page are kept until ingestion stores swaps again (versioned-results.ts); token metadata
 * is applied to them at every request.
 */
export class SwapsRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly hourCounts: SwapHourCounts,
    private readonly tokens: TokenRefs,
    private readonly kept: VersionedResults,
    private readonly options: SwapsReadOptions = { scanRows: SCAN_ROWS },
  ) {}

  /** A page of the swaps matching `filter`, of the served wallets only (`served`; null: every wallet). */
  async list(filter: SwapFilter, page: Page, start: PageStart, options: ReadOptions = {}, served: ServedScope | null = null): Promise<SwapPage> {
    const range = { start: Math.min(filter.startMs, MAX_TIMESTAMP_MS), end: Math.min(filter.endMs, MAX_TIMESTAMP_MS) }
    const cursor = 'cursor' in start ? start.cursor : undefined
    const cursorParams: Params = cursor
      ? { cursorTs: cursor.timestampMs, cursorHash: cursor.hash, cursorChain: cursor.chainId }
      : {}
    const key = JSON.stringify(['list', range, filter.walletAddress, filter.tokenAddresses, page.limit, start, served?.generation ?? null])
    const result = await this.kept.read(
      key,
      (reading) =>
        filter.walletAddress !== undefined
          ? isServed(served, filter.walletAddress)
            ? this.listWallet(filter.walletAddress, filter.tokenAddresses, range, page, start, cursorParams)
            : Promise.resolve({ rows: [], total: 0, offset: 'offset' in start ? start.offset : 0 })
          : filter.tokenAddresses !== undefined
            ? this.listByHours(this.tokenPages(filter.tokenAddresses, served), range, page, start, cursorParams, reading)
            : this.listByHours(this.rangePages(served), range, page, start, cursorParams, reading),
      options,
    )
    const last = result.rows.at(-1)
    const hasMore = last !== undefined && result.rows.length === page.limit && result.offset + page.limit < result.total
    return {
      swaps: result.rows.map((r) => this.toSwap(r)),
      total: result.total,
      offset: result.offset,
      next: hasMore ? { timestampMs: Number(last.timestamp_ms), hash: last.hash, chainId: Number(last.chain_id) } : null,
    }
  }

  /** Every swap (of the served wallets): rows straight from swaps_by_time. */
  private rangePages(served: ServedScope | null): HourPages {
    const ofServed = servedCondition(this.tables, served)
    return {
      counts: this.hourCounts.scoped(null, served),
      params: ofServed.params,
      page: (where) => `SELECT ${SELECT_ROW} FROM ${this.tables.swaps} FINAL
        WHERE ${IN_RANGE} AND ${ofServed.sql} AND ${where}
        ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
      keys: (where) => `SELECT ${KEY_COLUMNS} FROM ${this.tables.swaps} FINAL WHERE ${IN_RANGE} AND ${ofServed.sql} AND ${where}`,
    }
  }

  /**
   * Swaps of some tokens (either leg): keys from the token path, rows by key. Of the served
   * wallets only, the token path's keys are those of the served wallets' legs (each leg
   * carries its swap's wallet; FINAL keeps each leg's live version before the filter, the
   * wallet not being a key column), and the rows read by key are filtered again.
   */
  private tokenPages(tokens: string[], served: ServedScope | null): HourPages {
    // A swap has one leg row per token, so one token needs no DISTINCT (a token id naming
    // several addresses may meet a swap twice).
    const distinct = tokens.length > 1 ? 'DISTINCT' : ''
    const ofServed = servedCondition(this.tables, served)
    const keys = `SELECT ${distinct} ${KEY_COLUMNS} FROM ${this.tables.swapLegs} FINAL WHERE token_address IN {tokens:Array(String)} AND ${IN_RANGE} AND ${ofServed.sql}`
    // FINAL applies before the filter on the row's tokens (they are not key columns), so
    // the live version of each swap is the one filtered, as on the token path.
    const scanPage = (where: string) => `SELECT ${SELECT_ROW} FROM ${this.tables.swaps} FINAL
        WHERE ${IN_RANGE} AND (token_sold_address IN {tokens:Array(String)} OR token_bought_address IN {tokens:Array(String)}) AND ${ofServed.sql} AND ${where}
        ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`
    const counts = this.hourCounts.scoped(tokens, served)
    const params = { tokens, ...ofServed.params }
    return {
      counts,
      params,
      page: (where) => `SELECT ${SELECT_ROW} FROM ${this.tables.swaps} FINAL
        WHERE ${IN_RANGE} AND ${KEY} IN (
          SELECT ${KEY_COLUMNS} FROM (${keys}) WHERE ${where}
          ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64})
          AND ${ofServed.sql}
        ORDER BY ${ORDER}`,
      keys: (where) => `SELECT * FROM (${keys}) WHERE ${where}`,
      scanPage,
    }
  }

  /** The page's hours, found from the exact hour counts of what `source` lists (as of `reading` of the change feed, when given). */
  private async listByHours(
    source: HourPages,
    range: { start: number; end: number },
    page: Page,
    start: PageStart,
    cursorParams: Params,
    reading?: FeedReading,
  ): Promise<{ rows: SwapRow[]; total: number; offset: number }> {
    const slices = await source.counts.slices(range.start, range.end, reading)
    const total = slices.reduce((n, s) => n + s.count, 0)
    // i: the newest slice holding rows of the page; skip: its rows before the page;
    // remaining: its rows from the page on.
    let i = 0
    let skip = 0
    let offset: number
    let remaining: number
    if ('cursor' in start) {
      const t = start.cursor.timestampMs
      while (i < slices.length && slices[i]!.from > t) i++
      if (i === slices.length) return { rows: [], total, offset: total }
      const own = slices[i]!
      const ownAhead = own.to >= t ? await this.count(source.keys(AT_OR_BEFORE_CURSOR), { ...source.params, ...cursorParams, start: own.from, end: own.to }) : 0
      offset = slices.slice(0, i).reduce((n, s) => n + s.count, 0) + ownAhead
      remaining = own.count - ownAhead
    } else {
      offset = skip = start.offset
      while (i < slices.length && skip >= slices[i]!.count) skip -= slices[i++]!.count
      if (i === slices.length) return { rows: [], total, offset }
      remaining = slices[i]!.count - skip
    }
    // j: the oldest slice the page reaches into.
    let j = i
    while (remaining < page.limit && j < slices.length - 1) remaining += slices[++j]!.count
    const where = 'cursor' in start ? AFTER_CURSOR : '1'
    const around = source.scanPage === undefined ? undefined : this.hourCounts.countedAround(slices[j]!.from, slices[i]!.to)
    const query = source.scanPage !== undefined && around !== undefined && around <= this.options.scanRows ? source.scanPage(where) : source.page(where)
    const rows = await this.rows(query, {
      ...source.params,
      start: slices[j]!.from,
      end: slices[i]!.to,
      ...cursorParams,
      limit: page.limit,
      offset: skip,
    })
    return { rows, total, offset }
  }

  /** A wallet's swaps (of some tokens, or all): its rows, whole, from the wallet path. */
  private async listWallet(
    wallet: string,
    tokens: string[] | undefined,
    range: { start: number; end: number },
    page: Page,
    start: PageStart,
    cursorParams: Params,
  ): Promise<{ rows: SwapRow[]; total: number; offset: number }> {
    const ofTokens = tokens === undefined ? '' : 'AND (token_sold_address IN {tokens:Array(String)} OR token_bought_address IN {tokens:Array(String)})'
    const where = `wallet_address = {wallet:String} AND ${IN_RANGE} ${ofTokens}`
    const base = { wallet, ...(tokens === undefined ? {} : { tokens }), ...range, ...cursorParams }
    const cursor = 'cursor' in start
    const [rows, total, ahead] = await Promise.all([
      this.rows(
        `SELECT ${SELECT_ROW} FROM ${this.tables.swapsByWallet} FINAL
         WHERE ${where} AND ${cursor ? AFTER_CURSOR : '1'}
         ORDER BY ${ORDER} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...base, limit: page.limit, offset: cursor ? 0 : start.offset },
      ),
      this.count(`SELECT 1 FROM ${this.tables.swapsByWallet} FINAL WHERE ${where}`, base),
      cursor ? this.count(`SELECT 1 FROM ${this.tables.swapsByWallet} FINAL WHERE ${where} AND ${AT_OR_BEFORE_CURSOR}`, base) : Promise.resolve(start.offset),
    ])
    return { rows, total, offset: ahead }
  }

  /** One record per transaction hash; should two chains share a hash, the lowest chain id. Null also when its wallet is not served. */
  async findByHash(hash: string, options: ReadOptions = {}, served: ServedScope | null = null): Promise<SwapTransaction | null> {
    const rows = await this.kept.read(
      JSON.stringify(['hash', hash]),
      () =>
        this.rows(
          `SELECT ${SELECT_ROW} FROM ${this.tables.swaps} FINAL
           WHERE ${KEY} IN (SELECT ${KEY_COLUMNS} FROM ${this.tables.swapLocations} WHERE hash = {hash:String})
           ORDER BY chain_id`,
          { hash },
        ),
      options,
    )
    const row = rows.find((r) => isServed(served, r.wallet_address))
    return row ? this.toSwap(row) : null
  }

  /** The live swaps at these keys (FINAL: the latest delivery; a retracted key has none), as the lists serve them. */
  async atKeys(keys: readonly SwapKey[]): Promise<SwapTransaction[]> {
    if (keys.length === 0) return []
    const times = keys.map((k) => k.timestampMs)
    const rows = await this.rows(
      `SELECT ${SELECT_ROW} FROM ${this.tables.swaps} FINAL
       WHERE ${IN_RANGE} AND ${KEY} IN (
         SELECT fromUnixTimestamp64Milli(k.1, 'UTC'), k.2, k.3
         FROM (SELECT arrayJoin(arrayZip({keyTimes:Array(Int64)}, {keyHashes:Array(String)}, {keyChains:Array(UInt32)})) AS k))`,
      {
        start: times.reduce((a, b) => Math.min(a, b)),
        end: times.reduce((a, b) => Math.max(a, b)),
        keyTimes: times,
        keyHashes: keys.map((k) => k.hash),
        keyChains: keys.map((k) => k.chainId),
      },
    )
    return rows.map((r) => this.toSwap(r))
  }

  /** Rows of a subquery (of live keys: they are exact as they stand). */
  private async count(subquery: string, params: Params): Promise<number> {
    const [row] = await queryRows<{ n: string | number }>(this.clickhouse, `SELECT count() AS n FROM (${subquery})`, params)
    return Number(row?.n ?? 0)
  }

  private rows(query: string, params: Params): Promise<SwapRow[]> {
    return queryRows<SwapRow>(this.clickhouse, query, params)
  }

  private toSwap(row: SwapRow): SwapTransaction {
    const sold = this.tokens.ref(row.token_sold_address)
    const bought = this.tokens.ref(row.token_bought_address)
    const timestampMs = Number(row.timestamp_ms)
    return {
      hash: row.hash,
      chain_id: Number(row.chain_id),
      block_number: Number(row.block_number),
      timestamp: new Date(timestampMs).toISOString(),
      timestamp_ms: timestampMs,
      wallet_address: row.wallet_address,
      token_sold: { ...sold, amount_raw: row.token_sold_amount, amount: toDecimalAmount(row.token_sold_amount, sold.decimals) },
      token_bought: {
        ...bought,
        amount_raw: row.token_bought_amount,
        amount: toDecimalAmount(row.token_bought_amount, bought.decimals),
      },
      value_usd: row.value_usd === null ? null : Number(row.value_usd),
      dex: row.dex,
    }
  }
}
