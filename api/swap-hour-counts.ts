import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Redis } from '../shared/platform/redis.js'
import { HOUR_MS, hourStart, readSwapHourMarks, readSwapHoursVersion } from '../shared/swaps/swap-hours.js'
import type { Tables } from '../shared/storage/tables.js'
import { listSet } from '../shared/storage/list-param.js'
import { servedCondition, type ServedScope } from './served-wallets.js'

/** A slice of a time range with its exact number of swaps; `from` and `to` inclusive, ms. */
export interface CountedSlice {
  from: number
  to: number
  count: number
}

interface CachedHour {
  count: number
  /** The hour's mark when it was counted (undefined: it had none). */
  mark: string | undefined
}

/** How far back the log of retractions is read again, for inserts still committing. */
const MOVES_OVERLAP_MS = 60_000

/** Partial-hour windows kept counted (the least recently read are dropped). */
const KEPT_WINDOWS = 1_024

interface CachedWindow {
  count: number
  /** The hours the window touches, and their marks when it was counted. */
  marks: Map<number, string | undefined>
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
 * the range. An hour is recounted (with FINAL, so exact whether merged or not) when
 * ingestion marks it changed (shared/swaps/swap-hours.ts) or a re-delivery retracted a
 * version in it (the swap_moves log). Marks are read before counting, so an insert
 * that lands while an hour is counted always leaves a newer mark behind it.
 *
 * `scoped` gives the same for the swaps of some tokens (either leg, from swap_legs_by_token)
 * and/or of the served wallets (SERVED_WALLETS=tracked, one count per generation of the
 * tracked set): such a page reads only the hours it lies in, like an unfiltered one.
 */
export class SwapHourCounts {
  private readonly hours = new Map<number, CachedHour>()
  private version: string | null | undefined = undefined
  private marks = new Map<number, string>()
  private movesSeenUntil = 0
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
    private readonly redis: Redis,
    private readonly redisPrefix: string,
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
      scoped = new SwapHourCounts(this.clickhouse, this.tables, this.redis, this.redisPrefix, previous === undefined ? scope : { ...scope, previous })
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
      n += cached.count
      counted++
    }
    return counted === 0 ? undefined : (n / counted) * hours
  }

  /** [startMs, endMs] cut into counted slices, newest first: partial edges, whole hours between. */
  async slices(requestedStart: number, requestedEnd: number): Promise<CountedSlice[]> {
    await this.sync()
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
    const [counts, hours] = await Promise.all([present.length > 0 ? this.keptWindows(present) : Promise.resolve([]), this.fill(firstFull, lastFullEnd)])
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

  /** Drops what changed since the last look: one Redis read when nothing did. */
  private async sync(): Promise<void> {
    const version = await readSwapHoursVersion(this.redis, this.redisPrefix)
    if (version === this.version) return
    if (version === null && this.version !== undefined) {
      // Redis lost its marks: nothing cached can be vouched for.
      this.hours.clear()
      this.windows.clear()
    }
    this.marks = await readSwapHourMarks(this.redis, this.redisPrefix)
    for (const [hour, cached] of this.hours) {
      if (this.marks.get(hour) !== cached.mark) this.hours.delete(hour)
    }
    const moved = new Set(await this.movedHours())
    for (const hour of moved) this.hours.delete(hour)
    for (const [key, cached] of this.windows) {
      for (const [hour, mark] of cached.marks) {
        if (moved.has(hour) || this.marks.get(hour) !== mark) {
          this.windows.delete(key)
          break
        }
      }
    }
    this.stored = await this.storedSpan()
    this.version = version
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

  /** Hours in which a re-delivery at another time retracted a version, since the last look. */
  private async movedHours(): Promise<number[]> {
    const rs = await this.clickhouse.query({
      query: `SELECT toString(max(toUnixTimestamp64Milli(moved_at))) AS until,
                groupUniqArray(intDiv(toUnixTimestamp64Milli(timestamp), ${HOUR_MS}) * ${HOUR_MS}) AS hours
              FROM ${this.tables.swapMoves}
              WHERE moved_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')`,
      query_params: { since: Math.max(0, this.movesSeenUntil - MOVES_OVERLAP_MS) },
      format: 'JSONEachRow',
    })
    const [row] = await rs.json<{ until: string; hours: (string | number)[] }>()
    if (row === undefined || row.hours.length === 0) return []
    this.movesSeenUntil = Math.max(this.movesSeenUntil, Number(row.until))
    return row.hours.map(Number)
  }

  /**
   * The count of every whole hour in [from, toExclusive): those kept, and the others in one
   * query, one filler at a time. What is counted is kept only if nothing changed meanwhile
   * (no sync saw a new version while the query ran: its marks or moves might postdate it).
   */
  private fill(from: number, toExclusive: number): Promise<Map<number, number>> {
    const run = this.filling.then(async () => {
      const counts = new Map<number, number>()
      let lo = Infinity
      let hi = -Infinity
      for (let h = from; h < toExclusive; h += HOUR_MS) {
        const cached = this.hours.get(h)
        if (cached !== undefined) {
          counts.set(h, cached.count)
          continue
        }
        lo = Math.min(lo, h)
        hi = Math.max(hi, h)
      }
      if (lo === Infinity) return counts
      const [marks, version] = [this.marks, this.version]
      const derived = await this.derivedHours(lo, hi, marks)
      for (const [h, n] of derived) counts.set(h, n)
      while (lo <= hi && counts.has(lo)) lo += HOUR_MS
      while (hi >= lo && counts.has(hi)) hi -= HOUR_MS
      const keep = this.version === version
      if (lo > hi) {
        if (keep) for (const [h, n] of derived) if (!this.hours.has(h)) this.hours.set(h, { count: n, mark: marks.get(h) })
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
      const kept = this.version === version
      for (let h = from; h < toExclusive; h += HOUR_MS) {
        if (counts.has(h) && !derived.has(h)) continue
        const n = counted.get(h) ?? 0
        counts.set(h, n)
        if (kept && !this.hours.has(h)) this.hours.set(h, { count: n, mark: marks.get(h) })
      }
      return counts
    })
    this.filling = run.catch(() => undefined)
    return run
  }

  /**
   * Whole hours of [lo, hi] derived from the previous generation's counts: each hour it holds
   * counted under the mark the hour has now, plus the added wallets' swaps in it, less the
   * removed wallets' (read through the wallet path, whose rows are the same live swaps).
   */
  private async derivedHours(lo: number, hi: number, marks: Map<number, string>): Promise<Map<number, number>> {
    const derived = new Map<number, number>()
    const previous = this.scope.previous
    if (previous === undefined) return derived
    await previous.counts.sync() // drops its hours that changed since it last looked
    const base = new Map<number, number>()
    for (let h = lo; h <= hi; h += HOUR_MS) {
      const cached = previous.counts.hours.get(h)
      if (cached !== undefined && cached.mark === marks.get(h) && !this.hours.has(h)) base.set(h, cached.count)
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
      const [marks, version] = [this.marks, this.version] // read before counting, as for whole hours
      const counts = await this.countWindows(missing.map((i) => windows[i]!))
      // Kept only if no sync saw a change while counting (its marks or moves might postdate the count).
      const keep = this.version === version
      missing.forEach((w, n) => {
        known.set(keys[w]!, counts[n]!)
        if (!keep) return
        const [from, to] = windows[w]!
        const touched = new Map<number, string | undefined>()
        for (let h = hourStart(from); h <= to; h += HOUR_MS) touched.set(h, marks.get(h))
        this.windows.set(keys[w]!, { count: counts[n]!, marks: touched })
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
