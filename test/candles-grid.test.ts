import { describe, expect, it } from 'vitest'
import { walkCandleGrid } from '../shared/candles/candles.js'
import { seededFloats as prng } from '../ingest/sample-data/prng.js'

/** The grid walk interval by interval, as gap filling was first written: the reference the runs must expand to. */
function walkOneByOne(times: readonly number[], firstTime: number, lastTime: number, intervalMs: number): Array<[number, number]> {
  const visits: Array<[number, number]> = []
  let at = 0
  while (at < times.length && times[at]! < firstTime) at++
  for (let t = firstTime; t <= lastTime; t += intervalMs) {
    if (at < times.length && times[at] === t) visits.push([t, at++])
    else visits.push([t, -1])
  }
  return visits
}

function expandRuns(times: readonly number[], firstTime: number, lastTime: number, intervalMs: number): Array<[number, number]> {
  const visits: Array<[number, number]> = []
  walkCandleGrid(times, firstTime, lastTime, intervalMs, (time, index, count) => {
    expect(count).toBeGreaterThan(0)
    for (let k = 0; k < count; k++) visits.push([time + k * intervalMs, index < 0 ? -1 : index + k])
  })
  return visits
}

describe('gap filling walks the grid in runs', () => {
  it('visits exactly the intervals, observed or not, of the one-by-one walk (random series, seeded)', () => {
    const random = prng(20261123)
    const step = 4
    for (let n = 0; n < 2000; n++) {
      const times: number[] = []
      let t = Math.floor(random() * 10) * step
      for (let k = Math.floor(random() * 30); k > 0; k--) {
        const r = random()
        // mostly the next interval, sometimes a gap, rarely off the grid or repeated (the walk must not loop on those)
        t += r < 0.6 ? step : r < 0.9 ? step * (1 + Math.floor(random() * 5)) : r < 0.95 ? 1 + Math.floor(random() * 3) : 0
        times.push(t)
      }
      const firstTime = Math.floor(random() * 12) * step - step
      const lastTime = firstTime + Math.floor(random() * 60) * step - step
      expect(expandRuns(times, firstTime, lastTime, step), JSON.stringify({ times, firstTime, lastTime })).toEqual(
        walkOneByOne(times, firstTime, lastTime, step),
      )
    }
  })

  it('a series without gaps is one run; one gap makes three', () => {
    const runs: Array<[number, number, number]> = []
    const record = (time: number, index: number, count: number) => void runs.push([time, index, count])
    walkCandleGrid([0, 4, 8, 12], 0, 12, 4, record)
    expect(runs).toEqual([[0, 0, 4]])
    runs.length = 0
    walkCandleGrid([0, 4, 16, 20], 0, 28, 4, record)
    expect(runs).toEqual([[0, 0, 2], [8, -1, 2], [16, 2, 2], [24, -1, 2]])
  })
})
