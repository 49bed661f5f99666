import { changeRangeParams, IN_CHANGE_RANGE, type ChangeRange } from '../shared/changes/change-feed.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { HOUR_MS, hourStart } from '../shared/platform/time-units.js'
import { queryRows } from '../shared/storage/query-rows.js'
import type { Tables } from '../shared/storage/tables.js'
import { listSet } from '../shared/storage/list-param.js'
import { CHANGES_READABLE_MS } from '../shared/changes/change-feed.js'
import { rangeTo, type FeedReading, type FeedWatch } from './feed-watch.js'
import { servedCondition, type ServedScope } from './served-wallets.js'

/** A slice of a time range with its exact number of swaps; `from` and `to` inclusive, ms. */
export interface CountedSlice {
  from: number
  to: number
  count: number
}

/** Partial-hour windows kept counted (the least recently read are dropped). */
const KEPT_WINDOWS = 1_024

interface CachedWindow {
  count: number
  /** The hours the window touches. */
  hours: number[]
}

/** Scopes (token sets, served generations) whose hours are kept counted at once (the least recently read are dropped). */
const SCOPES = 256

/** What a SwapHourCounts counts: the swaps with one of `tokens` on either leg (null: any), of the served wallets (null: every wallet). */
interface CountScope {
  tokens: readonly string[] | null
  served: ServedScope | null
  /** The same tokens' counts under the generation read before this one, and the wallets that differ (see fill). */
  previous?: { counts: SwapHourCounts; added: readonly string[]; removed: readonly string[] }
}

/**
 * A new generation's whole hours are derived from the previous generation's (its count, plus
 * the added wallets' swaps, less the removed ones') when at most this many wallets differ:
 * those wallets' swaps are read through the wallet path, so the cost is theirs, not the
 * store's. A larger change is counted afresh.
 */
const MAX_DERIVED_WALLETS = 2_000

/**
 * Exact counts of the live swaps per hour, cached in this process: a whole-range total
 * is a sum of cached hours plus two partial hours at the edges, not a FINAL scan of
 * the range. An hour is recounted (with FINAL, so exact whether merged or not) once the
 * change feed names a swap change in it: a swap stored, retracted or moved away (a
 * tombstone at its old time), or a variant replaced at the same time. The feed is read
 * before counting, so an insert that lands while an hour is counted is in the feed after
 * the position read, and the next sync drops the hour; the feed has no time window, so
 * a change is seen however late it commits.
 *
 * `scoped` gives the same for the swaps of some tokens (either leg, from swap_legs_by_token)
 * and/or of the served wallets (SERVED_WALLETS=tracked, one count per generation of the
 * tracked set): such a page reads only the hours it lies in, like an unfiltered one.
 */
export class SwapHourCounts {
  private readonly hours = new Map<number, number>()
  /** The last reading of the feed taken in (undefined: none yet, nothing cached). */
  private at: FeedReading | undefined
  /** Grows with every sync that found changes: what was counted meanwhile is not kept. */
  private syncs = 0
  private syncing: Promise<void> = Promise.resolve()
  /** First and last stored time (ms), read again whenever anything changed; null: no swaps. */
  private stored: { min: number; max: number } | null = null
  private filling: Promise<unknown> = Promise.resolve()
  private readonly scopes = new Map<string, SwapHourCounts>()
  /**
   * Counts of partial-hour windows (a range's edges), by "from:to": a client paging through
   * one range asks for the same edges on every page. Dropped as the hours they touch are.
   */
  private readonly windows = new Map<string, CachedWindow>()

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    private readonly feed: FeedWatch,
    private readonly scope: CountScope = { tokens: null, served: null },
  ) {}

  /** The counts of the swaps of `tokens` (either leg; null: any) of the served wallets (null: all), kept while they are read. */
  scoped(tokens: readonly string[] | null, served: ServedScope | null): SwapHourCounts {
    if (tokens === null && served === null) return this
    const key = JSON.stringify([tokens === null ? null : [...tokens].sort(), served?.generation ?? null])
    let scoped = this.scopes.get(key)
    if (scoped) this.scopes.delete(key)
    else {
      const scope: CountScope = { tokens: tokens === null ? null : [...tokens], served }
      const previous = served === null ? undefined : this.previousGeneration(scope)
      scoped = new SwapHourCounts(this.clickhouse, this.tables, this.feed, previous === undefined ? scope : { ...scope, previous })
    }
    this.scopes.set(key, scoped)
    if (this.scopes.size > SCOPES) this.scopes.delete(this.scopes.keys().next().value!)
    return scoped
  }

  /** The most recently read scope of the same tokens under another generation, when few enough wallets differ. */
  private previousGeneration(scope: CountScope): CountScope['previous'] {
    const tokens = JSON.stringify(scope.tokens === null ? null : [...scope.tokens].sort())
    const served = scope.served!
    for (const other of [...this.scopes.values()].reverse()) {
      const was = other.scope.served
      if (was === null || was.generation === served.generation) continue
      if (JSON.stringify(other.scope.tokens === null ? null : [...other.scope.tokens].sort()) !== tokens) continue
      const added = [...served.wallets].filter((w) => !was.wallets.has(w))
      const removed = [...was.wallets].filter((w) => !served.wallets.has(w))
      return added.length + removed.length <= MAX_DERIVED_WALLETS ? { counts: other, added, removed } : undefined
    }
    return undefined
  }

  /** The counted swaps in `range` (SQL over `timestamp`): one row each, with its timestamp. */
  private counted(range: string): string {
    const { tokens, served } = this.scope
    const ofServed = servedCondition(this.tables, served).sql
    if (served !== null && tokens === null) {
      // The served wallets' swaps, by scanning the range in swaps_by_time: FINAL keeps each
      // swap's live version before the filter (the wallet is not a key column). On 10M swaps
      // with 5 % of the wallets served, 90 days took 0.44-0.54 s. The wallet path
      // (swap_rows_by_wallet) took 0.3-0.4 s, but the served wallets' rows lie in nearly every
      // granule of it, so a narrow window (an edge hour) costs as much there.
      return `SELECT timestamp FROM ${this.tables.swaps} FINAL WHERE (${range}) AND ${ofServed}`
    }
    if (tokens === null) return `SELECT timestamp FROM ${this.tables.swaps} FINAL WHERE (${range})`
    // One leg row per token, so one token needs no DISTINCT (a token id naming several addresses may meet a swap twice).
    const distinct = tokens.length > 1 ? 'DISTINCT' : ''
    // Each leg carries its swap's wallet: the served wallets' legs are those of the live versions (FINAL first).
    return `SELECT ${distinct} timestamp, hash, chain_id FROM ${this.tables.swapLegs} FINAL WHERE token_address IN {tokens:Array(String)} AND (${range}) AND ${ofServed}`
  }

  private get scopeParams(): Record<string, unknown> {
    const { tokens, served } = this.scope
    return { ...(tokens === null ? {} : { tokens }), ...servedCondition(this.tables, served).params }
  }

  /**
   * About how many swaps the hours [from, to] touches hold, from the hours last counted
   * (an hour not counted, such as a partial edge hour, is taken as the mean of those that
   * were); undefined when none was. An estimate for choosing how to read a page, never an answer.
   */
  countedAround(from: number, to: number): number | undefined {
    let n = 0
    let counted = 0
    let hours = 0
    for (let h = hourStart(from); h <= to; h += HOUR_MS) {
      hours++
      const cached = this.hours.get(h)
      if (cached === undefined) continue
      n += cached
      counted++
    }
    return counted === 0 ? undefined : (n / counted) * hours
  }

  /**
   * [startMs, endMs] cut into counted slices, newest first: partial edges, whole hours between.
   * `reading`: a reading of the feed taken after the request arrived (else one is taken).
   */
  async slices(requestedStart: number, requestedEnd: number, reading?: FeedReading): Promise<CountedSlice[]> {
    await this.sync(reading)
    // Only the stored span has hours worth counting (start_time=0 would be 490,000 hours).
    if (this.stored === null || requestedEnd < this.stored.min || requestedStart > this.stored.max) return []
    const startMs = Math.max(requestedStart, this.stored.min)
    const endMs = Math.min(requestedEnd, this.stored.max)
    const firstFull = hourStart(startMs) === startMs ? startMs : hourStart(startMs) + HOUR_MS
    const lastFullEnd = hourStart(endMs + 1) // exclusive end of the last whole hour
    if (firstFull >= lastFullEnd) return [{ from: startMs, to: endMs, count: (await this.keptWindows([[startMs, endMs]]))[0]! }]
    // The partial hours at the edges are counted (in one query) while the whole hours are filled.
    const edges: Array<[number, number] | undefined> = [endMs >= lastFullEnd ? [lastFullEnd, endMs] : undefined, startMs < firstFull ? [startMs, firstFull - 1] : undefined]
    const present = edges.filter((e): e is [number, number] => e !== undefined)
    const [counts, hours] = await Promise.all([present.length > 0 ? this.keptWindows(present) : Promise.resolve([]), this.fill(firstFull, lastFullEnd, reading)])
    const newest = edges[0] === undefined ? undefined : counts[0]
    const oldest = edges[1] === undefined ? undefined : counts[present.length - 1]
    const slices: CountedSlice[] = []
    if (newest !== undefined) slices.push({ from: lastFullEnd, to: endMs, count: newest })
    for (let h = lastFullEnd - HOUR_MS; h >= firstFull; h -= HOUR_MS) {
      slices.push({ from: h, to: h + HOUR_MS - 1, count: hours.get(h)! })
    }
    if (oldest !== undefined) slices.push({ from: startMs, to: firstFull - 1, count: oldest })
    return slices
  }

  /** Takes in `reading`, or the feed as read after this call: drops the hours changed since the last reading taken in. */
  private async sync(given?: FeedReading): Promise<void> {
    const reading = given ?? (await this.feed.read())
    const run = this.syncing.then(() => this.takeIn(reading))
    this.syncing = run.catch(() => undefined)
    return run
  }

  private async takeIn(reading: FeedReading): Promise<void> {
    const at = this.at
    if (at !== undefined && reading.read <= at.read) return // a later reading was taken in already
    // Nothing cached yet; or the counter started again (the range restarts at 0), or changes
    // since the last reading may have expired: nothing cached can be vouched for.
    const range = at === undefined ? undefined : rangeTo(reading, at.position)
    const afresh = at === undefined || range!.from < at.position || reading.epoch !== at.epoch || reading.startedAt - at.startedAt > CHANGES_READABLE_MS
    // The feed's reader found no swap change between the two readings: nothing to drop.
    if (!afresh && reading.versions.swap === at.versions.swap) {
      this.at = reading
      return
    }
    this.syncs++ // before anything is dropped: a count running now is not kept
    if (afresh) {
      this.hours.clear()
      this.windows.clear()
    } else {
      const changed = await this.changedHours(range!)
      for (const hour of changed) this.hours.delete(hour)
      for (const [key, cached] of this.windows) if (cached.hours.some((h) => changed.has(h))) this.windows.delete(key)
    }
    this.stored = await this.storedSpan()
    this.at = reading
  }

  /** The hours of the swap changes in `range`: swaps stored, retracted or moved, variants replaced. */
  private async changedHours(range: ChangeRange): Promise<Set<number>> {
    const [row] = await queryRows<{ hours: (string | number)[] }>(
      this.clickhouse,
      `SELECT groupUniqArray(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}) * ${HOUR_MS}) AS hours
       FROM ${this.tables.changes} WHERE kind = 'swap' AND ${IN_CHANGE_RANGE}`,
      changeRangeParams(range),
    )
    return new Set((row?.hours ?? []).map(Number))
  }

  private async storedSpan(): Promise<{ min: number; max: number } | null> {
    const rs = await this.clickhouse.query({
      query: `SELECT count() AS n, toString(toUnixTimestamp64Milli(min(timestamp))) AS min,
                toString(toUnixTimestamp64Milli(max(timestamp))) AS max FROM ${this.tables.swaps}`,
      format: 'JSONEachRow',
    })
    const [row] = await rs.json<{ n: string | number; min: string; max: string }>()
    return row === undefined || Number(row.n) === 0 ? null : { min: Number(row.min), max: Number(row.max) }
  }

  /**
   * The count of every whole hour in [from, toExclusive): those kept, and the others in one
   * query, one filler at a time. What is counted is kept only if nothing changed meanwhile
   * (no sync found changes while the query ran: they might postdate it).
   */
  private fill(from: number, toExclusive: number, reading?: FeedReading): Promise<Map<number, number>> {
    const run = this.filling.then(async () => {
      const counts = new Map<number, number>()
      let lo = Infinity
      let hi = -Infinity
      for (let h = from; h < toExclusive; h += HOUR_MS) {
        const cached = this.hours.get(h)
        if (cached !== undefined) {
          counts.set(h, cached)
          continue
        }
        lo = Math.min(lo, h)
        hi = Math.max(hi, h)
      }
      if (lo === Infinity) return counts
      const syncs = this.syncs
      const derived = await this.derivedHours(lo, hi, reading)
      for (const [h, n] of derived) counts.set(h, n)
      while (lo <= hi && counts.has(lo)) lo += HOUR_MS
      while (hi >= lo && counts.has(hi)) hi -= HOUR_MS
      if (lo > hi) {
        if (this.syncs === syncs) for (const [h, n] of derived) if (!this.hours.has(h)) this.hours.set(h, n)
        return counts
      }
      const rs = await this.clickhouse.query({
        query: `SELECT toString(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}) * ${HOUR_MS}) AS hour, count() AS n
                FROM (${this.counted(`timestamp >= fromUnixTimestamp64Milli({lo:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({hi:Int64}, 'UTC')`)})
                GROUP BY hour`,
        query_params: { lo, hi: hi + HOUR_MS, ...this.scopeParams },
        format: 'JSONEachRow',
      })
      const counted = new Map<number, number>(derived)
      for (const row of await rs.json<{ hour: string; n: string | number }>()) if (!derived.has(Number(row.hour))) counted.set(Number(row.hour), Number(row.n))
      const kept = this.syncs === syncs
      for (let h = from; h < toExclusive; h += HOUR_MS) {
        if (counts.has(h) && !derived.has(h)) continue
        const n = counted.get(h) ?? 0
        counts.set(h, n)
        if (kept && !this.hours.has(h)) this.hours.set(h, n)
      }
      return counts
    })
    this.filling = run.catch(() => undefined)
    return run
  }

  /**
   * Whole hours of [lo, hi] derived from the previous generation's counts: each hour it holds
   * (as of a reading of the feed no older than this one's), plus the added wallets' swaps in
   * it, less the removed wallets' (read through the wallet path, whose rows are the same live swaps).
   */
  private async derivedHours(lo: number, hi: number, reading?: FeedReading): Promise<Map<number, number>> {
    const derived = new Map<number, number>()
    const previous = this.scope.previous
    if (previous === undefined) return derived
    await previous.counts.sync(reading) // drops its hours that changed since it last looked
    const [mine, theirs] = [this.at, previous.counts.at]
    if (mine === undefined || theirs === undefined || theirs.epoch !== mine.epoch || theirs.position < mine.position) return derived
    const base = new Map<number, number>()
    for (let h = lo; h <= hi; h += HOUR_MS) {
      const cached = previous.counts.hours.get(h)
      if (cached !== undefined && !this.hours.has(h)) base.set(h, cached)
    }
    if (base.size === 0) return derived
    const hours = [...base.keys()]
    const differ = [...previous.added, ...previous.removed]
    const diff = new Map<number, number>()
    if (differ.length > 0) {
      const ofTokens = this.scope.tokens === null ? '' : 'AND (token_sold_address IN {tokens:Array(String)} OR token_bought_address IN {tokens:Array(String)})'
      const rs = await this.clickhouse.query({
        query: `SELECT toString(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}) * ${HOUR_MS}) AS hour,
                  toInt64(countIf(wallet_address IN ${listSet('added')})) - toInt64(countIf(wallet_address IN ${listSet('removed')})) AS n
                FROM ${this.tables.swapsByWallet} FINAL
                WHERE wallet_address IN ${listSet('differ')}
                  AND timestamp >= fromUnixTimestamp64Milli({lo:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({hi:Int64}, 'UTC') ${ofTokens}
                GROUP BY hour`,
        query_params: { added: previous.added, removed: previous.removed, differ, lo: Math.min(...hours), hi: Math.max(...hours) + HOUR_MS, ...(this.scope.tokens === null ? {} : { tokens: this.scope.tokens }) },
        format: 'JSONEachRow',
      })
      for (const row of await rs.json<{ hour: string; n: string | number }>()) diff.set(Number(row.hour), Number(row.n))
    }
    for (const [h, n] of base) derived.set(h, n + (diff.get(h) ?? 0))
    return derived
  }

  /** countWindows, for the windows not kept from an earlier request; those counted are kept. */
  private async keptWindows(windows: ReadonlyArray<readonly [number, number]>): Promise<number[]> {
    const keys = windows.map(([from, to]) => `${from}:${to}`)
    // Read now: a sync during the count below may drop them (this request synced before).
    const known = new Map<string, number>()
    for (const key of keys) {
      const cached = this.windows.get(key)
      if (cached !== undefined) known.set(key, cached.count)
    }
    const missing = keys.flatMap((key, i) => (known.has(key) ? [] : [i]))
    if (missing.length > 0) {
      const syncs = this.syncs // read before counting, as for whole hours
      const counts = await this.countWindows(missing.map((i) => windows[i]!))
      // Kept only if no sync found changes while counting (they might postdate the count).
      const keep = this.syncs === syncs
      missing.forEach((w, n) => {
        known.set(keys[w]!, counts[n]!)
        if (!keep) return
        const [from, to] = windows[w]!
        const touched: number[] = []
        for (let h = hourStart(from); h <= to; h += HOUR_MS) touched.push(h)
        this.windows.set(keys[w]!, { count: counts[n]!, hours: touched })
      })
    }
    for (const key of keys) {
      const cached = this.windows.get(key)
      if (cached === undefined) continue
      this.windows.delete(key) // most recently read last
      this.windows.set(key, cached)
    }
    while (this.windows.size > KEPT_WINDOWS) this.windows.delete(this.windows.keys().next().value!)
    return keys.map((key) => known.get(key)!)
  }

  /** Exact counts of a few windows [from, to] (inclusive, ms), in one query. */
  private async countWindows(windows: ReadonlyArray<readonly [number, number]>): Promise<number[]> {
    const params: Record<string, unknown> = { ...this.scopeParams }
    const inWindow = windows.map(([from, to], i) => {
      params[`from${i}`] = from
      params[`to${i}`] = to
      return `(timestamp >= fromUnixTimestamp64Milli({from${i}:Int64}, 'UTC') AND timestamp <= fromUnixTimestamp64Milli({to${i}:Int64}, 'UTC'))`
    })
    const rs = await this.clickhouse.query({
      query: `SELECT ${inWindow.map((w, i) => `countIf(${w}) AS n${i}`).join(', ')} FROM (${this.counted(inWindow.join(' OR '))})`,
      query_params: params,
      format: 'JSONEachRow',
    })
    const [row] = await rs.json<Record<string, string | number>>()
    return windows.map((_, i) => Number(row?.[`n${i}`] ?? 0))
  }
}
