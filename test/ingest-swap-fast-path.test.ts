import { describe, expect, it } from 'vitest'
import { swapRecord } from '../shared/records/records.js'
import { fastSwap } from '../ingest/pipeline/swap-fast-path.js'
import { validateRecords } from '../ingest/pipeline/validate-records.js'
import { swapCases } from './support/swap-cases.js'

describe('swap validation fast path', () => {
  const cases = swapCases()

  it('accepts only what the schema accepts, and returns exactly what the schema returns', () => {
    let fastAccepted = 0
    for (const input of cases) {
      const fast = fastSwap(input)
      const slow = swapRecord.safeParse(input)
      if (fast === undefined) continue
      fastAccepted++
      expect(slow.success, JSON.stringify(input)).toBe(true)
      expect(fast).toStrictEqual(slow.data)
    }
    // the fast path must actually carry the common case
    expect(fastAccepted).toBeGreaterThan(100)
  })

  it('leaves validation outcomes unchanged: the worker validates as the schema does', () => {
    const { valid, rejected } = validateRecords('swap', cases)
    const expectedValid = cases.map((c) => swapRecord.safeParse(c)).filter((r) => r.success).map((r) => r.data)
    expect(valid).toStrictEqual(expectedValid)
    expect(valid.length + rejected.length).toBe(cases.length)
    expect(rejected.every((r) => r.reason.length > 0)).toBe(true)
  })
})
