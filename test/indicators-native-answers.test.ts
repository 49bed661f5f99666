import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS } from '../shared/candles/candles.js'
import { queryNative } from '../shared/storage/native-format.js'
import { fourHourCandles, HOUR_ROWS_TYPE, lastHourCloses } from '../indicators/hour-candles.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

describe('answers in the Native format, and the engine\'s 4-hour candles from them', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt.cleanup()
  })

  it('decodes strings, numbers, arrays and tuples exactly, over several blocks, values as typed parameters', async () => {
    const blocks = await queryNative(
      rt.clickhouse,
      `SELECT concat({prefix:String}, toString(number)) AS name, toUInt32(number * 7) AS n, number / 3 AS x,
              arrayMap(i -> toFloat64(i) / 7, range(number)) AS xs, arrayMap(i -> (toUInt32(i), i * 0.1), range(number % 3)) AS pairs
       FROM numbers(10) SETTINGS max_block_size = 4`,
      { prefix: 'é-' },
    )
    expect(blocks.length).toBeGreaterThan(1)
    const names = blocks.flatMap((b) => b.strings('name'))
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `é-${i}`))
    const xs = blocks.flatMap((b) => {
      const { ends, items } = b.float64Arrays('xs')
      return Array.from(ends, (end, row) => Array.from(items.subarray(row > 0 ? ends[row - 1]! : 0, end)))
    })
    expect(xs).toEqual(Array.from({ length: 10 }, (_, i) => Array.from({ length: i }, (_, k) => k / 7)))
    const pairs = blocks.flatMap((b) => {
      const c = b.column('pairs', 'Array(Tuple(UInt32, Float64))')
      if (c.kind !== 'Array' || c.items.kind !== 'Tuple') throw new Error('not an array of tuples')
      const [first, second] = c.items.elements
      if (first?.kind !== 'UInt32' || second?.kind !== 'Float64') throw new Error('not (UInt32, Float64)')
      return Array.from(c.ends, (end, row) => {
        const from = row > 0 ? c.ends[row - 1]! : 0
        return Array.from({ length: end - from }, (_, k) => [first.values[from + k], second.values[from + k]])
      })
    })
    expect(pairs).toEqual(Array.from({ length: 10 }, (_, i) => Array.from({ length: i % 3 }, (_, k) => [k, k * 0.1])))
    expect(() => blocks[0]!.column('n', 'UInt64')).toThrow(/n is UInt32, expected UInt64/)
    expect(() => blocks[0]!.strings('missing')).toThrow(/no column missing/)
  })

  it('names a type it does not decode', async () => {
    await expect(queryNative(rt.clickhouse, 'SELECT toInt64(1) AS v', {})).rejects.toThrow(/Int64 is not decoded/)
  })

  it('4-hour candles: the last hour\'s close, the highest high, the lowest low, the volumes added in hour order, whatever order the hours came in', async () => {
    // Hours 0..7 (two intervals) and 12 (a third), given out of order.
    const hours = [5, 0, 12, 3, 1, 7, 2, 6, 4]
    const blocks = await queryNative(
      rt.clickhouse,
      `SELECT 'token' AS token,
              arrayMap((h, hi, lo, c, v) -> (h, hi, lo, c, v), {hours:Array(UInt32)}, {highs:Array(Float64)}, {lows:Array(Float64)},
                       {closes:Array(Float64)}, {volumes:Array(Float64)}) AS hours`,
      {
        hours,
        highs: hours.map((h) => 100.5 + h),
        lows: hours.map((h) => 90.25 - h),
        closes: hours.map((h) => h + 0.125),
        volumes: hours.map((h) => 0.1 * (h + 1)),
      },
    )
    expect(blocks[0]!.column('hours', HOUR_ROWS_TYPE).kind).toBe('Array')
    const [candles] = fourHourCandles(blocks[0]!, 'hours')
    const inHourOrder = (from: number, to: number) => {
      let sum = 0.1 * (from + 1)
      for (let h = from + 1; h <= to; h++) sum += 0.1 * (h + 1)
      return sum
    }
    expect(Array.from(candles!.times)).toEqual([0, CANDLE_MS, 3 * CANDLE_MS])
    expect(Array.from(candles!.closes)).toEqual([3.125, 7.125, 12.125])
    expect(Array.from(candles!.highs)).toEqual([103.5, 107.5, 112.5])
    expect(Array.from(candles!.lows)).toEqual([87.25, 83.25, 78.25])
    expect(Array.from(candles!.volumes)).toEqual([inHourOrder(0, 3), inHourOrder(4, 7), inHourOrder(12, 12)])
    // The order matters to the bit: 0.1 + 0.2 + 0.3 + 0.4 is not 0.4 + 0.3 + 0.2 + 0.1.
    expect(inHourOrder(0, 3)).not.toBe(0.4 + 0.3 + 0.2 + 0.1)

    const times = new Float64Array(hours.length)
    const closes = new Float64Array(hours.length)
    const end = lastHourCloses(Uint32Array.from(hours), Float64Array.from(hours, (h) => h + 0.125), times, closes, 0)
    expect(Array.from(times.subarray(0, end))).toEqual(Array.from(candles!.times))
    expect(Array.from(closes.subarray(0, end))).toEqual(Array.from(candles!.closes))
  })
})
