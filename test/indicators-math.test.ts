import { describe, expect, it } from 'vitest'
import { IndicatorState } from '../shared/candles/indicator-math/indicator-state.js'
import { latestPivots, pivotLevels } from '../shared/candles/indicator-math/pivots.js'
import { expectClose, referenceVectors, type ReferenceFile } from './support/ta-reference.js'
import { seededFloats as prng } from '../ingest/sample-data/prng.js'

const reference: ReferenceFile = referenceVectors()
const latestSma = (closes: number[], period: number) => IndicatorState.ofCloses(closes).sma(period)
const latestRsi = (closes: number[]) => IndicatorState.ofCloses(closes).rsi()
const latestMacd = (closes: number[]) => IndicatorState.ofCloses(closes).macd()

describe('indicator math against the TA-Lib reference vectors', () => {
  for (const vector of reference.vectors) {
    it(`${vector.id}: every indicator agrees with TA-Lib`, () => {
      const { closes, expected } = vector
      expectClose(latestSma(closes, 50), expected.sma50)
      expectClose(latestSma(closes, 100), expected.sma100)
      expectClose(latestSma(closes, 200), expected.sma200)
      expectClose(latestRsi(closes), expected.rsi14)
      const macd = latestMacd(closes)
      expectClose(macd?.macd ?? null, expected.macd)
      expectClose(macd?.signal ?? null, expected.macdSignal)
      expectClose(macd?.histogram ?? null, expected.macdHistogram)
    })

    it(`${vector.id}: each indicator is null one close before its first index, a number at it`, () => {
      const first = vector.firstIndex
      const cases: Array<[number | null, (c: number[]) => unknown]> = [
        [first.sma50, (c) => latestSma(c, 50)],
        [first.sma100, (c) => latestSma(c, 100)],
        [first.sma200, (c) => latestSma(c, 200)],
        [first.rsi14, (c) => latestRsi(c)],
        [first.macd, (c) => latestMacd(c)],
      ]
      for (const [index, compute] of cases) {
        if (index === null) continue
        expect(compute(vector.closes.slice(0, index))).toBeNull()
        expect(compute(vector.closes.slice(0, index + 1))).not.toBeNull()
      }
    })
  }

  it('the issue thresholds: ma200 needs 200 closes, rsi 15, macd 34', () => {
    const closes = reference.vectors[0]!.closes
    expect(latestSma(closes.slice(0, 199), 200)).toBeNull()
    expect(latestSma(closes.slice(0, 200), 200)).toBeTypeOf('number')
    expect(latestRsi(closes.slice(0, 14))).toBeNull()
    expect(latestRsi(closes.slice(0, 15))).toBeTypeOf('number')
    expect(latestMacd(closes.slice(0, 33))).toBeNull()
    expect(latestMacd(closes.slice(0, 34))).not.toBeNull()
  })
})

describe('degenerate series', () => {
  it('no candles at all gives every indicator null, without NaN or a throw', () => {
    expect(IndicatorState.empty().values()).toEqual({
      pivotPoints: null,
      ma50: null,
      ma100: null,
      ma200: null,
      rsi: null,
      macd: null,
    })
  })

  it('flat prices: rsi is null (no movement), the averages are the price, macd is zero', () => {
    const closes = Array.from({ length: 250 }, () => 1.25)
    const values = IndicatorState.ofCloses(closes).values()
    expect(values.rsi).toBeNull()
    expect(values.ma50).toBe(1.25)
    expect(values.ma200).toBe(1.25)
    expect(values.macd).toEqual({ macd: 0, signal: 0, histogram: 0 })
  })

  it('a series that only rises has rsi 100, one that only falls rsi 0', () => {
    const up = Array.from({ length: 30 }, (_, i) => 10 + i)
    const down = Array.from({ length: 30 }, (_, i) => 100 - i)
    expect(latestRsi(up)).toBe(100)
    expect(latestRsi(down)).toBe(0)
  })

  it('a tiny-priced token that moves is not mistaken for a flat one', () => {
    const closes = Array.from({ length: 30 }, (_, i) => 1e-12 * (1 + (i % 3) * 0.01))
    const rsi = latestRsi(closes)
    expect(rsi).not.toBeNull()
    expect(Number.isFinite(rsi)).toBe(true)
  })
})

describe('pivot points', () => {
  for (const example of reference.pivotExamples) {
    it(`hand-worked example H=${example.input.H} L=${example.input.L} C=${example.input.C}`, () => {
      const levels = pivotLevels(example.input.H, example.input.L, example.input.C)
      for (const name of ['P', 'R1', 'S1', 'R2', 'S2'] as const) expectClose(levels[name], example.expected[name])
    })
  }

  it('take the last six closed candles: highest high, lowest low, last close, summed volume', () => {
    const example = reference.pivotExamples[0]!
    const { H, L, C } = example.input
    const candles = [
      { high: 999, low: 1, close: 500, volume: 1000 }, // a seventh, older candle: left out
      { high: H - 1, low: L + 1, close: 104, volume: 1 },
      { high: H, low: L + 2, close: 103, volume: 2 },
      { high: H - 2, low: L, close: 102, volume: 3 },
      { high: H - 3, low: L + 3, close: 101, volume: 4 },
      { high: H - 4, low: L + 4, close: 100.5, volume: 5 },
      { high: H - 5, low: L + 1, close: C, volume: 6 },
    ]
    const pivots = latestPivots(candles)
    expect(pivots).toEqual({
      keyLevel: example.expected.P,
      Resistance1: example.expected.R1,
      Support1: example.expected.S1,
      Resistance2: example.expected.R2,
      Support2: example.expected.S2,
      dailyHigh: H,
      dailyLow: L,
      dailyClose: C,
      volume24: 21,
    })
    expect(latestPivots(candles.slice(-5))).toBeNull()
  })
})

describe('carried state', () => {
  it('stored and restored at any candle, then fed the rest, gives the same bits as one pass', () => {
    const random = prng(7)
    for (let run = 0; run < 200; run++) {
      const n = 1 + Math.floor(random() * 600)
      let price = 1 + random() * 1000
      const candles = Array.from({ length: n }, () => {
        price *= 1 + (random() - 0.5) / 10
        return { high: price * 1.01, low: price * 0.99, close: price, volume: Math.floor(random() * 100) }
      })
      const cut = Math.floor(random() * (n + 1))
      const first = IndicatorState.of(candles.slice(0, cut))
      const resumed = IndicatorState.fromBytes(new Uint8Array(first.toBytes()))!
      for (const c of candles.slice(cut)) resumed.push(resumed.lastTime + 1, c.high, c.low, c.close, c.volume)
      expect(resumed.values(), `run ${run}: ${n} candles cut at ${cut}`).toEqual(IndicatorState.of(candles).values())
      expect(resumed.count).toBe(n)
    }
  })

  it('taking the last candle back and feeding another gives the bits of one pass over the changed series', () => {
    const random = prng(11)
    for (let run = 0; run < 100; run++) {
      const n = 1 + Math.floor(random() * 300)
      const candles = Array.from({ length: n }, () => {
        const close = 1 + random() * 100
        return { high: close + random(), low: close - random(), close, volume: Math.floor(random() * 100) }
      })
      const changed = { high: 500 * random(), low: random(), close: 100 * random(), volume: 7 }
      const state = IndicatorState.fromBytes(new Uint8Array(IndicatorState.of(candles).toBytes()))!
      expect(state.undoLast()).toBe(true)
      expect(state.undoLast()).toBe(false) // once only
      state.push(state.lastTime + 1, changed.high, changed.low, changed.close, changed.volume)
      const expected = IndicatorState.of([...candles.slice(0, -1), changed])
      expect(state.values(), `run ${run}`).toEqual(expected.values())
      expect(state.count).toBe(n)
    }
  })

  it('a run of closes fed at once gives the bytes of pushing them one by one, undo record included', () => {
    const random = prng(13)
    for (let run = 0; run < 200; run++) {
      const oneByOne = IndicatorState.empty()
      const inRuns = IndicatorState.empty()
      let time = 1_000 * Math.floor(random() * 100)
      for (let part = Math.floor(random() * 8); part >= 0; part--) {
        const count = Math.floor(random() * 60)
        const flat = random() < 0.3 // a gap: one close for the whole run
        const closes = Float64Array.from({ length: count + 3 }, () => 1 + random() * 100)
        const from = Math.floor(random() * 3)
        const closeAt = (k: number) => (flat ? oneByOne.lastClose || 42 : closes[from + k]!)
        const constant = closeAt(0)
        for (let k = 0; k < count; k++) {
          const close = flat ? constant : closeAt(k)
          oneByOne.push(time + k * 4, close, close, close, 0)
        }
        if (flat) inRuns.pushCloses(time, 4, count, constant)
        else inRuns.pushCloses(time, 4, count, closes, from)
        time += count * 4
        if (random() < 0.3) {
          // a whole candle between runs
          const c = { high: 200 * random(), low: random(), close: 100 * random(), volume: 7 * random() }
          oneByOne.push(time, c.high, c.low, c.close, c.volume)
          inRuns.push(time, c.high, c.low, c.close, c.volume)
          time += 4
        }
      }
      expect(inRuns.toBytes().equals(oneByOne.toBytes()), `run ${run}`).toBe(true)
    }
  })

  it('bytes of another size or version are no state', () => {
    const bytes = new Uint8Array(IndicatorState.ofCloses([1, 2, 3]).toBytes())
    expect(IndicatorState.fromBytes(bytes.subarray(8))).toBeNull()
    bytes.fill(0, 0, 8)
    expect(IndicatorState.fromBytes(bytes)).toBeNull()
  })
})
