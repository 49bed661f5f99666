import { performance } from 'node:perf_hooks'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { refreshCandles, type CandleRefreshResult } from '../shared/candles/candle-refresh.js'
import { CANDLE_MS, candleStart, lastClosedCandleStart } from '../shared/candles/candles.js'
import type { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'
import type { Logger } from '../shared/platform/logger.js'
import type { IndicatorJobResult } from '../shared/platform/queues.js'
import type { Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'
import { technicalAnalysisKey } from '../shared/candles/technical-analysis.js'
import { advanceState, readCandlesSince, recomputeSlices, stateFromHistory } from './candle-series.js'
import { technicalAnalysisOf, type TokenMeta } from './compute-indicators.js'
import { NO_CANDLES, type CandleColumns } from './hour-candles.js'
import { IndicatorStateStore } from './indicator-states.js'
import { RecomputeLocks } from './recompute-lock.js'
import { readHistories, type HistoryFilter, type TokenHistory } from './token-histories.js'
import { bareTokenMeta, readTokenMetadata } from './token-metadata.js'

export interface EngineDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  /** A request/response connection for the cache, the states and the locks. */
  redis: Redis
  redisPrefix: string
  logger: Logger
  /** Now, in ms: decides the last closed interval. Tests hand a fixed one. */
  clock: () => number
}

export interface EngineOptions {
  /** Tokens computed and written per Redis round trip. */
  batchSize?: number
  /** Slices of the address space a full recompute reads one after another, overlapping ClickHouse and JavaScript (the first in two: recomputeSlices). */
  slices?: number
  lockTtlMs?: number
  /** How long a recompute of given tokens waits for another process recomputing one of them. */
  lockWaitMs?: number
}

/** Where a run's time went (ms), for the logs and the benchmark. */
export interface RunTimes {
  /** Waiting for ClickHouse (candles, metadata) and not overlapped with anything else. */
  readMs: number
  /** The indicator math (feeding states, computing values). */
  mathMs: number
  /** Redis: locks, states read, results and states written. */
  redisMs: number
}

export interface RecomputeAllResult extends RunTimes {
  /** Tokens with closed candles. */
  tokens: number
  written: number
  /** Tokens another process was recomputing at that moment (it writes them). */
  skipped: number
}

export interface AdvanceResult extends RunTimes {
  /** Tokens stepped from their carried state, reading only their new candles. */
  stepped: number
  /** Tokens recomputed from their stored candles (closed candles changed, no usable state, or too far behind). */
  recomputed: number
  /** Of the stepped tokens, those whose last candle changed: taken back and fed again. */
  undone: number
  /** Tokens whose state was already at the last closed interval. */
  current: number
  /** Tokens another process held at that moment (it writes them). */
  skipped: number
}

export const NO_CANDLES_REASON = 'the token has no closed 4-hour candles yet'

/** A state further behind than this (a week of intervals) is recomputed rather than stepped. */
const MAX_STEPS = 42

/**
 * Computes the cached indicator results and each token's carried state:
 * - full (recomputeAll, recomputeTokens, recomputeToken): from the stored candles of the
 *   whole history;
 * - incremental (advance, after a 4-hour boundary): from each token's carried state and
 *   only the candles after it, so its cost does not grow with history; tokens whose
 *   closed candles changed are recomputed in full instead.
 * Both feed the same IndicatorState, so they give the same bits. Every write is under
 * the token's recompute lock; a result and its state are written in one MULTI.
 */
export class IndicatorEngine {
  private readonly locks: RecomputeLocks
  private readonly states: IndicatorStateStore
  private readonly batchSize: number
  private readonly slices: number
  private readonly lockWaitMs: number

  constructor(
    private readonly deps: EngineDeps,
    options: EngineOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500
    this.slices = options.slices ?? 8
    this.lockWaitMs = options.lockWaitMs ?? 30_000
    this.locks = new RecomputeLocks(deps.redis, deps.redisPrefix, options.lockTtlMs ?? 60_000)
    this.states = new IndicatorStateStore(deps.redis, deps.redisPrefix)
  }

  /**
   * Every token with closed candles, from its stored candles: one query per slice of the
   * address space, the next one already running in ClickHouse while JavaScript computes
   * and writes the previous one. A batch's results go to Redis while the next batch is
   * computed (at most MAX_WRITES_IN_FLIGHT unanswered), its locks released once they are
   * stored. A token locked by another process is skipped (it writes it).
   */
  async recomputeAll(): Promise<RecomputeAllResult> {
    const { clickhouse, tables } = this.deps
    const now = this.deps.clock()
    const lastClosed = lastClosedCandleStart(now)
    const totals: RecomputeAllResult = { tokens: 0, written: 0, skipped: 0, readMs: 0, mathMs: 0, redisMs: 0 }
    let t = performance.now()
    await refreshCandles(clickhouse, tables)
    const metadata = await readTokenMetadata(clickhouse, tables)
    totals.readMs += performance.now() - t
    const ranges = recomputeSlices(this.slices)
    const fetch = (i: number) => readHistories(clickhouse, tables, { lo: ranges[i]![0], hi: ranges[i]![1] }, lastClosed)
    const writes = new WritesInFlight(totals)
    try {
      let next = fetch(0)
      for (let i = 0; i < ranges.length; i++) {
        t = performance.now()
        const histories = await next
        totals.readMs += performance.now() - t
        if (i + 1 < ranges.length) {
          next = fetch(i + 1)
          next.catch(() => undefined) // surfaced when awaited; never an unhandled rejection meanwhile
        }
        for (let b = 0; b < histories.length; b += this.batchSize) {
          const batch = histories.slice(b, b + this.batchSize)
          totals.tokens += batch.length
          t = performance.now()
          const held = await this.locks.acquireMany(batch.map((h) => h.contractAddress))
          totals.redisMs += performance.now() - t
          const holding = new Set(held)
          const mine = batch.filter((h) => holding.has(h.contractAddress))
          totals.skipped += batch.length - mine.length
          let sent: Promise<void>
          try {
            t = performance.now()
            const states = mine.map((h): [string, IndicatorState] => [h.contractAddress, stateFromHistory(h, lastClosed)])
            totals.mathMs += performance.now() - t
            sent = this.send(states, metadata, now, totals)
            totals.written += states.length
          } catch (err) {
            sent = Promise.reject(err)
          }
          await writes.add(sent.finally(() => this.locks.release(held)))
        }
      }
    } catch (err) {
      await writes.drain().catch(() => undefined) // the locks are released; the first error is the one to report
      throw err
    }
    await writes.drain()
    return totals
  }

  /**
   * After a candle refresh found these tokens' candles changed in a closed interval
   * (`from`: the earliest changed interval's start, null for the whole history; the
   * stored candles already hold the change): a token whose carried state took in a
   * changed interval before its last one is recomputed from its stored candles; one whose
   * change is in its state's last interval takes that candle back (undoLast) and steps;
   * one whose change comes after its state's last interval only steps forward.
   */
  async recomputeTokens(changes: ReadonlyArray<readonly [string, number | null]>): Promise<AdvanceResult> {
    const changed = new Map<string, number | null>()
    for (const [token, from] of changes) {
      const key = token.toLowerCase()
      const known = changed.get(key)
      changed.set(key, known === undefined || from === null || (known !== null && from < known) ? from : known)
    }
    return this.bringUpToDate([...changed.keys()], changed, this.deps.clock(), false)
  }

  /** One token from its stored candles (on demand); waits for another process recomputing it. */
  async recomputeToken(contractAddress: string): Promise<IndicatorJobResult> {
    const address = contractAddress.toLowerCase()
    await refreshCandles(this.deps.clickhouse, this.deps.tables, { token: address })
    const written = await this.recomputeFromCandles([address], this.deps.clock())
    return written > 0 ? { written } : { written: 0, reason: NO_CANDLES_REASON }
  }

  /**
   * The incremental step, after a 4-hour boundary: every token with a carried state is fed
   * the intervals since its last one (its new candles, gaps filled) and written; only the
   * candles after the earliest state are read, so the cost does not grow with history.
   * Closed changes the refresh run here finds are handled as recomputeTokens does; tokens
   * with closed candles but no state are recomputed from their stored candles.
   */
  async advance(): Promise<AdvanceResult> {
    const now = this.deps.clock()
    let t = performance.now()
    const changed = new Map(closedChanges(await refreshCandles(this.deps.clickhouse, this.deps.tables), now))
    const readMs = performance.now() - t
    t = performance.now()
    const tokens = new Set(await this.states.tokens())
    for (const token of changed.keys()) tokens.add(token)
    const redisMs = performance.now() - t
    const result = await this.bringUpToDate([...tokens], changed, now, true)
    result.readMs += readMs
    result.redisMs += redisMs
    return result
  }

  /**
   * Brings the given tokens to the last closed interval: each one with a usable state
   * (not past a change, at most a week behind) steps from it, reading only the candles
   * after it; the others are recomputed from their stored candles. With `findNew`, tokens
   * with closed candles in the intervals read but no state are recomputed too.
   */
  private async bringUpToDate(
    tokens: readonly string[],
    changed: ReadonlyMap<string, number | null>,
    now: number,
    findNew: boolean,
  ): Promise<AdvanceResult> {
    const { clickhouse, tables } = this.deps
    const lastClosed = lastClosedCandleStart(now)
    const result: AdvanceResult = { stepped: 0, undone: 0, recomputed: 0, current: 0, skipped: 0, readMs: 0, mathMs: 0, redisMs: 0 }
    const full = new Set<string>()
    let t = performance.now()
    const held = findNew ? await this.acquireFree(tokens) : await this.acquireWaiting(tokens)
    result.skipped = tokens.length - held.length
    try {
      // Read under the locks: no other process can write these states until they are released.
      const stepping: Array<[string, IndicatorState]> = []
      // At least the last closed interval: a token with no state yet shows up there.
      let from = lastClosed
      for (let i = 0; i < held.length; i += this.batchSize) {
        const batch = held.slice(i, i + this.batchSize)
        const states = await this.states.read(batch)
        const undo = (state: IndicatorState) => state.undoLast() && ++result.undone > 0
        states.forEach((state, j) => {
          const token = batch[j]!
          const change = changed.get(token)
          if (state === null || state.count === 0 || change === null) full.add(token)
          // A change to the state's last candle only: take that candle back and feed it again.
          else if (change !== undefined && change <= state.lastTime && !(change === state.lastTime && undo(state))) full.add(token)
          else if (state.lastTime >= lastClosed) result.current++
          else if (state.lastTime < lastClosed - MAX_STEPS * CANDLE_MS) full.add(token)
          else {
            stepping.push([token, state])
            from = Math.min(from, state.lastTime + CANDLE_MS)
          }
        })
      }
      result.redisMs += performance.now() - t

      t = performance.now()
      const candles = findNew
        ? await readCandlesSince(clickhouse, tables, from, lastClosed)
        : stepping.length > 0
          ? await readCandlesSince(clickhouse, tables, from, lastClosed, stepping.map(([token]) => token))
          : new Map<string, CandleColumns>()
      if (findNew) {
        const known = new Set(tokens)
        for (const token of candles.keys()) if (!known.has(token)) full.add(token)
      }
      const metadata = stepping.length > 0 ? await readTokenMetadata(clickhouse, tables, stepping.map(([token]) => token)) : new Map()
      result.readMs += performance.now() - t

      for (let i = 0; i < stepping.length; i += this.batchSize) {
        const batch = stepping.slice(i, i + this.batchSize)
        t = performance.now()
        for (const [token, state] of batch) advanceState(state, candles.get(token) ?? NO_CANDLES, lastClosed)
        result.mathMs += performance.now() - t
        await this.write(batch, metadata, now, result)
      }
      result.stepped = stepping.length
    } finally {
      t = performance.now()
      for (let i = 0; i < held.length; i += this.batchSize) await this.locks.release(held.slice(i, i + this.batchSize))
      result.redisMs += performance.now() - t
    }
    if (full.size > 0) result.recomputed = await this.recomputeFromCandles([...full], now, result)
    return result
  }

  /** Full recompute of the given tokens (in batches), waiting for their locks. Returns how many were written. */
  private async recomputeFromCandles(
    tokens: readonly string[],
    now: number,
    times: RunTimes = { readMs: 0, mathMs: 0, redisMs: 0 },
  ): Promise<number> {
    const { clickhouse, tables } = this.deps
    const lastClosed = lastClosedCandleStart(now)
    let written = 0
    for (let i = 0; i < tokens.length; i += this.batchSize) {
      const batch = tokens.slice(i, i + this.batchSize)
      const held = await this.acquireWaiting(batch)
      try {
        const filter: HistoryFilter = { tokens: batch }
        const [histories, metadata] = await Promise.all([
          readHistories(clickhouse, tables, filter, lastClosed),
          readTokenMetadata(clickhouse, tables, batch),
        ])
        written += await this.computeAndWrite(histories, metadata, lastClosed, now, times)
      } finally {
        await this.locks.release(held)
      }
    }
    return written
  }

  /** Takes every free lock of the tokens (in batches); returns the tokens held. */
  private async acquireFree(tokens: readonly string[]): Promise<string[]> {
    const held: string[] = []
    for (let i = 0; i < tokens.length; i += this.batchSize) held.push(...(await this.locks.acquireMany(tokens.slice(i, i + this.batchSize))))
    return held
  }

  /** Takes the tokens' locks, waiting (up to lockWaitMs) for those another process holds. */
  private async acquireWaiting(tokens: readonly string[]): Promise<string[]> {
    const deadline = Date.now() + this.lockWaitMs
    const held: string[] = []
    let waiting = [...tokens]
    for (;;) {
      const got = new Set(await this.acquireFree(waiting))
      held.push(...got)
      waiting = waiting.filter((token) => !got.has(token))
      if (waiting.length === 0) return held
      if (Date.now() >= deadline) {
        await this.locks.release(held)
        throw new Error(`another recompute of ${waiting[0]} held its lock for more than ${this.lockWaitMs} ms`)
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  private async computeAndWrite(
    histories: readonly TokenHistory[],
    metadata: Map<string, TokenMeta>,
    lastClosed: number,
    now: number,
    times: RunTimes,
  ): Promise<number> {
    const t = performance.now()
    const states = histories.map((h): [string, IndicatorState] => [h.contractAddress, stateFromHistory(h, lastClosed)])
    times.mathMs += performance.now() - t
    await this.write(states, metadata, now, times)
    return states.length
  }

  /** Writes each token's result and state together (one MULTI). */
  private async write(
    states: ReadonlyArray<readonly [string, IndicatorState]>,
    metadata: Map<string, TokenMeta>,
    now: number,
    times: RunTimes,
  ): Promise<void> {
    const sent = this.send(states, metadata, now, times)
    const t = performance.now()
    await sent
    times.redisMs += performance.now() - t
  }

  /**
   * Sends each token's result and state together: one MULTI holding one MSET of the
   * results and one HSET of the states (two commands to encode, however many tokens).
   * The results are computed here (math time); resolves once Redis has stored them.
   */
  private send(
    states: ReadonlyArray<readonly [string, IndicatorState]>,
    metadata: Map<string, TokenMeta>,
    now: number,
    times: RunTimes,
  ): Promise<void> {
    if (states.length === 0) return Promise.resolve()
    const t = performance.now()
    const timestamp = new Date(now).toISOString()
    const results = new Map<string, string>()
    for (const [token, state] of states) {
      const result = technicalAnalysisOf(state, metadata.get(token) ?? bareTokenMeta(token), timestamp)
      results.set(technicalAnalysisKey(this.deps.redisPrefix, token), JSON.stringify(result))
    }
    times.mathMs += performance.now() - t
    const multi = this.deps.redis.multi()
    multi.mset(results)
    this.states.write(multi, states)
    return multi.exec().then((replies) => {
      for (const [err] of replies ?? []) if (err) throw err
    })
  }
}

/** Most batches of a full recompute sent to Redis and not yet answered: computing goes on meanwhile, memory stays bounded. */
const MAX_WRITES_IN_FLIGHT = 2

/** The unanswered writes of a full recompute; the time spent waiting for them counts as Redis time. */
class WritesInFlight {
  private readonly pending: Array<Promise<unknown>> = []

  constructor(private readonly times: RunTimes) {}

  /** Adds a write; waits for the oldest while more than MAX_WRITES_IN_FLIGHT are unanswered. Rejects with a failed write. */
  async add(write: Promise<unknown>): Promise<void> {
    write.catch(() => undefined) // surfaced when awaited; never an unhandled rejection meanwhile
    this.pending.push(write)
    while (this.pending.length > MAX_WRITES_IN_FLIGHT) await this.wait(this.pending.shift()!)
  }

  /** Waits for every write still unanswered (all of them, even after one failed); rejects with the first failure. */
  async drain(): Promise<void> {
    const t = performance.now()
    const outcomes = await Promise.allSettled(this.pending.splice(0))
    this.times.redisMs += performance.now() - t
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason
  }

  private async wait(write: Promise<unknown>): Promise<void> {
    const t = performance.now()
    try {
      await write
    } finally {
      this.times.redisMs += performance.now() - t
    }
  }
}

/**
 * The tokens a candle refresh found changed in a closed interval at `now`, each with the
 * start of its earliest changed interval (null: the whole history, its decimals changed).
 */
export function closedChanges(refresh: CandleRefreshResult, now: number): Array<[string, number | null]> {
  const inProgress = candleStart(now)
  return [...refresh.earliestChange]
    .filter(([, from]) => from === null || candleStart(from) < inProgress)
    .map(([token, from]) => [token, from === null ? null : candleStart(from)])
}
