import { readFileSync } from 'node:fs'
import { expect } from 'vitest'

/** The TA-Lib reference vectors (a copy of the team's reference file, kept with the tests). */
export interface ReferenceVector {
  id: string
  closes: number[]
  expected: {
    sma50: number | null
    sma100: number | null
    sma200: number | null
    rsi14: number | null
    macd: number | null
    macdSignal: number | null
    macdHistogram: number | null
  }
  firstIndex: { sma50: number | null; sma100: number | null; sma200: number | null; rsi14: number | null; macd: number | null }
}

export interface PivotExample {
  input: { H: number; L: number; C: number }
  expected: { P: number; R1: number; S1: number; R2: number; S2: number }
}

export interface ReferenceFile {
  vectors: ReferenceVector[]
  pivotExamples: PivotExample[]
}

export function referenceVectors(): ReferenceFile {
  const url = new URL('../fixtures/ta-lib-vectors.json', import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ReferenceFile
}

/** Agreement within 1e-9 relative, or 1e-9 absolute near zero; null must meet null. */
export function expectClose(actual: number | null | undefined, expected: number | null): void {
  if (expected === null) {
    expect(actual ?? null).toBeNull()
    return
  }
  expect(actual).toBeTypeOf('number')
  const diff = Math.abs((actual as number) - expected)
  const tolerance = Math.max(1e-9 * Math.abs(expected), 1e-9)
  expect(diff, `|${actual} - ${expected}| = ${diff} > ${tolerance}`).toBeLessThanOrEqual(tolerance)
}
