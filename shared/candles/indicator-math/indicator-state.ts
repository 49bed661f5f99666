import type { TechnicalAnalysis } from '../technical-analysis.js'
import { latestPivots, PIVOT_CANDLES, type PivotInput } from './pivots.js'

/** The indicators of section 2.6; each one null while the series is too short for it. */
export type IndicatorValues = Pick<TechnicalAnalysis, 'pivotPoints' | 'ma50' | 'ma100' | 'ma200' | 'rsi' | 'macd'>

export const RSI_PERIOD = 14
export const MACD_FAST = 12
export const MACD_SLOW = 26
export const MACD_SIGNAL = 9
/** The longest moving average: how many closes the state keeps. */
export const SMA_WINDOW = 200

// Layout of the state: a header of scalars, the last six candles, the last 200 closes, and
// what the last push overwrote (its undo record).
const VERSION = 2
const H_VERSION = 0
const H_COUNT = 1
const H_TIME = 2
const H_PREVIOUS_CLOSE = 3
const H_GAIN = 4 // sum of the gains while seeding, then Wilder's average gain
const H_LOSS = 5
const H_SLOW = 6 // sum of closes while seeding, then the slow EMA
const H_FAST = 7
const H_SIGNAL = 8 // sum of MACD values while seeding, then the signal EMA
const H_MACD = 9
const HEADER = 10
const TAIL = HEADER
const TAIL_FIELDS = 4 // high, low, close, volume
const CLOSES = TAIL + PIVOT_CANDLES * TAIL_FIELDS
// Undo record: [1 when valid, header[H_COUNT..HEADER), the tail slot (4), the close slot].
const UNDO = CLOSES + SMA_WINDOW
const UNDO_HEADER = UNDO + 1
const UNDO_TAIL = UNDO_HEADER + (HEADER - H_COUNT)
const UNDO_CLOSE = UNDO_TAIL + TAIL_FIELDS
export const STATE_DOUBLES = UNDO_CLOSE + 1
/** A serialized state's size in bytes. */
export const STATE_BYTES = STATE_DOUBLES * 8

const SLOW_K = 2 / (MACD_SLOW + 1)
const FAST_K = 2 / (MACD_FAST + 1)
const SIGNAL_K = 2 / (MACD_SIGNAL + 1)
/** The bar (0-based) of the first MACD value, and of the first signal. */
const FIRST_MACD = MACD_SLOW - 1
const FIRST_SIGNAL = FIRST_MACD + MACD_SIGNAL - 1

/**
 * Everything the indicators need to go on from the last candle fed: the moving
 * averages' last 200 closes, RSI 14's Wilder averages, MACD 12/26/9's three EMAs and the
 * last six candles (pivots). A full computation feeds every candle from the first; an
 * incremental one restores the state and feeds only the new candles: the same code
 * either way, so both give the same bits. Each step reproduces TA-Lib's recurrences
 * (and technicalindicators' float operations, in the same order):
 * - RSI: the first averages are the plain means of the first 14 changes, then
 *   avg = (avg * 13 + x) / 14;
 * - MACD: the slow EMA is seeded with the SMA of closes[0..25], the fast one with the SMA
 *   of closes[14..25] (TA-Lib's alignment), the signal with the SMA of the first nine MACD
 *   values; then ema = (x - ema) * k + ema;
 * - SMA n: the sum of the last n closes, oldest first, divided by n.
 * Candles are fed on the 4-hour grid, oldest first, one per interval (gaps filled before).
 * The state is a Float64Array, stored as its bytes; it also keeps what its last push
 * overwrote, so that push can be taken back (undoLast).
 */
export class IndicatorState {
  private constructor(private readonly s: Float64Array) {}

  /** The state after `candles` (a regular series, oldest first; times are not checked). */
  static of(candles: readonly PivotInput[]): IndicatorState {
    const state = IndicatorState.empty()
    for (const c of candles) state.push(state.lastTime + 1, c.high, c.low, c.close, c.volume)
    return state
  }

  /** The state after closes alone (high = low = close, no volume): the close-only indicators. */
  static ofCloses(closes: readonly number[]): IndicatorState {
    return IndicatorState.of(closes.map((close) => ({ high: close, low: close, close, volume: 0 })))
  }

  static empty(): IndicatorState {
    const s = new Float64Array(STATE_DOUBLES)
    s[H_VERSION] = VERSION
    s[H_TIME] = -1
    return new IndicatorState(s)
  }

  /** A state from its stored bytes; null if they are not a state of this version. */
  static fromBytes(bytes: Uint8Array): IndicatorState | null {
    if (bytes.length !== STATE_BYTES) return null
    const copy = new Uint8Array(STATE_BYTES) // 8-byte aligned, not a pooled slice
    copy.set(bytes)
    const s = new Float64Array(copy.buffer)
    return s[H_VERSION] === VERSION ? new IndicatorState(s) : null
  }

  toBytes(): Buffer {
    return Buffer.from(this.s.buffer, this.s.byteOffset, this.s.byteLength)
  }

  /** How many candles were fed. */
  get count(): number {
    return this.s[H_COUNT]!
  }

  /** Start (ms) of the last candle fed; -1 before the first. */
  get lastTime(): number {
    return this.s[H_TIME]!
  }

  get lastClose(): number {
    return this.s[H_PREVIOUS_CLOSE]!
  }

  /** Feeds the next candle of the grid. */
  push(time: number, high: number, low: number, close: number, volume: number): void {
    this.feed(time, 0, 1, close, 0, high, low, volume)
  }

  /**
   * Feeds `count` candles of the grid made of a close alone (high = low = close, no
   * volume), at `time`, `time + intervalMs`, ...: closes[from] on, or one close for them
   * all. The same as that many pushes, in one loop (how a full recompute feeds a history).
   */
  pushCloses(time: number, intervalMs: number, count: number, closes: number | ArrayLike<number>, from = 0): void {
    this.feed(time, intervalMs, count, closes, from, null, null, 0)
  }

  /**
   * The step, for `count` candles in a row (push: one). Candle k: time + k * intervalMs,
   * its close closes[from + k] (or `closes` itself), high and low `high` and `low` (null:
   * the close), `volume`. The scalars live in locals for the whole run and are written back
   * once; the undo record is written for the last candle only (a push writes it for its
   * candle, so after a run it holds what the run's last push would have): per candle this
   * is a few float operations, where reading and writing the state around each one cost
   * several times more. The operations and their order are those of one push after
   * another, so are the bits.
   */
  private feed(
    time: number,
    intervalMs: number,
    count: number,
    closes: number | ArrayLike<number>,
    from: number,
    high: number | null,
    low: number | null,
    volume: number,
  ): void {
    if (count <= 0) return
    const s = this.s
    const oneClose = typeof closes === 'number' ? closes : NaN
    const series = typeof closes === 'number' ? null : closes
    let n = s[H_COUNT]! | 0 // an integer: the modulos below are then integer ones, not fmod
    let lastTime = s[H_TIME]!
    let previous = s[H_PREVIOUS_CLOSE]!
    let gain = s[H_GAIN]!
    let loss = s[H_LOSS]!
    let slow = s[H_SLOW]!
    let fast = s[H_FAST]!
    let signal = s[H_SIGNAL]!
    let macd = s[H_MACD]!
    for (let k = 0; k < count; k++) {
      const close = series === null ? oneClose : series[from + k]!
      const t = TAIL + (n % PIVOT_CANDLES) * TAIL_FIELDS
      const c = CLOSES + (n % SMA_WINDOW)
      if (k === count - 1) {
        s[UNDO] = 1
        s[UNDO_HEADER + H_COUNT - H_COUNT] = n
        s[UNDO_HEADER + H_TIME - H_COUNT] = lastTime
        s[UNDO_HEADER + H_PREVIOUS_CLOSE - H_COUNT] = previous
        s[UNDO_HEADER + H_GAIN - H_COUNT] = gain
        s[UNDO_HEADER + H_LOSS - H_COUNT] = loss
        s[UNDO_HEADER + H_SLOW - H_COUNT] = slow
        s[UNDO_HEADER + H_FAST - H_COUNT] = fast
        s[UNDO_HEADER + H_SIGNAL - H_COUNT] = signal
        s[UNDO_HEADER + H_MACD - H_COUNT] = macd
        for (let f = 0; f < TAIL_FIELDS; f++) s[UNDO_TAIL + f] = s[t + f]!
        s[UNDO_CLOSE] = s[c]!
      }
      if (n > 0) {
        const change = close - previous
        const up = change > 0 ? change : 0
        const down = change < 0 ? -change : 0
        if (n < RSI_PERIOD) {
          gain = gain + up
          loss = loss + down
        } else if (n === RSI_PERIOD) {
          gain = (gain + up) / RSI_PERIOD
          loss = (loss + down) / RSI_PERIOD
        } else {
          gain = (gain * (RSI_PERIOD - 1) + up) / RSI_PERIOD
          loss = (loss * (RSI_PERIOD - 1) + down) / RSI_PERIOD
        }
      }
      if (n < FIRST_MACD) {
        slow = slow + close
        if (n >= MACD_SLOW - MACD_FAST) fast = fast + close
      } else {
        if (n === FIRST_MACD) {
          slow = (slow + close) / MACD_SLOW
          fast = (fast + close) / MACD_FAST
        } else {
          slow = (close - slow) * SLOW_K + slow
          fast = (close - fast) * FAST_K + fast
        }
        macd = fast - slow
        if (n < FIRST_SIGNAL) signal = signal + macd
        else if (n === FIRST_SIGNAL) signal = (signal + macd) / MACD_SIGNAL
        else signal = (macd - signal) * SIGNAL_K + signal
      }
      s[t] = high ?? close
      s[t + 1] = low ?? close
      s[t + 2] = close
      s[t + 3] = volume
      s[c] = close
      previous = close
      lastTime = time + k * intervalMs
      n++
    }
    s[H_COUNT] = n
    s[H_TIME] = lastTime
    s[H_PREVIOUS_CLOSE] = previous
    s[H_GAIN] = gain
    s[H_LOSS] = loss
    s[H_SLOW] = slow
    s[H_FAST] = fast
    s[H_SIGNAL] = signal
    s[H_MACD] = macd
  }

  /**
   * Takes the last push back (once): the state is again what it was before its last
   * candle, so a change to that candle (the usual late record) is fed from here instead of
   * from the whole history. False when there is nothing to take back.
   */
  undoLast(): boolean {
    const s = this.s
    if (s[UNDO] !== 1) return false
    const n = s[UNDO_HEADER]! | 0 // the count before the last push
    const t = TAIL + (n % PIVOT_CANDLES) * TAIL_FIELDS
    s.copyWithin(H_COUNT, UNDO_HEADER, UNDO_TAIL)
    s.copyWithin(t, UNDO_TAIL, UNDO_TAIL + TAIL_FIELDS)
    s[CLOSES + (n % SMA_WINDOW)] = s[UNDO_CLOSE]!
    s.fill(0, UNDO, STATE_DOUBLES)
    return true
  }

  /** The mean of the last `period` closes (at most 200), or null with fewer. */
  sma(period: number): number | null {
    const n = this.count
    if (period > SMA_WINDOW || n < period) return null
    let sum = 0
    for (let i = n - period; i < n; i++) sum += this.s[CLOSES + (i % SMA_WINDOW)]!
    return sum / period
  }

  /**
   * RSI 14: null before the 15th close, and when the averages show no movement at all
   * (TA-Lib would answer 0 there; the RSI is undefined). TA-Lib treats |movement| < 1e-14
   * as none; scaled by the price level here, so a token priced at 1e-12 USD is not
   * mistaken for a flat one.
   */
  rsi(): number | null {
    if (this.count < RSI_PERIOD + 1) return null
    const gain = this.s[H_GAIN]!
    const movement = gain + this.s[H_LOSS]!
    const scale = Math.max(Math.abs(this.lastClose), Number.MIN_VALUE)
    if (!(movement > 1e-14 * Math.min(1, scale))) return null
    return (100 * gain) / movement
  }

  /** MACD 12/26/9: null before the 34th close (TA-Lib's first output is at index 33). */
  macd(): { macd: number; signal: number; histogram: number } | null {
    if (this.count <= FIRST_SIGNAL) return null
    const macd = this.s[H_MACD]!
    const signal = this.s[H_SIGNAL]!
    return { macd, signal, histogram: macd - signal }
  }

  /** The last (up to six) candles fed, oldest first. */
  lastCandles(): PivotInput[] {
    const n = this.count
    const candles: PivotInput[] = []
    for (let i = Math.max(0, n - PIVOT_CANDLES); i < n; i++) {
      const t = TAIL + (i % PIVOT_CANDLES) * TAIL_FIELDS
      candles.push({ high: this.s[t]!, low: this.s[t + 1]!, close: this.s[t + 2]!, volume: this.s[t + 3]! })
    }
    return candles
  }

  /** The indicators of section 2.6 after the last candle fed. */
  values(): IndicatorValues {
    return {
      pivotPoints: latestPivots(this.lastCandles()),
      ma50: this.sma(50),
      ma100: this.sma(100),
      ma200: this.sma(200),
      rsi: this.rsi(),
      macd: this.macd(),
    }
  }
}
