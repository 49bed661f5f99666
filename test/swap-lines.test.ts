import { describe, expect, it } from 'vitest'
import { describeIssues, swapRecord } from '../shared/records/records.js'
import { encodeRows } from '../ingest/pipeline/compact-rows.js'
import { emptyPlainSwap, readPlainSwap } from '../ingest/pipeline/swap-fast-path.js'
import { swapLines } from '../ingest/pipeline/swap-lines.js'
import { SWAP_INSERT_COLUMNS as SWAP_COLUMNS } from '../shared/storage/schema/swaps-schema.js'
import { swapRow } from '../ingest/pipeline/table-rows.js'
import { swapInput } from './support/record-inputs.js'
import { swapCases } from './support/swap-cases.js'

const now = 1_763_700_000_123

/** What the schema path inserts for one record: zod, swapRow, then the client's JSONCompactEachRow text. */
function schemaPath(input: unknown): { text: string } | { reason: string } {
  const parsed = swapRecord.safeParse(input)
  if (!parsed.success) return { reason: describeIssues(parsed.error) }
  const encoded = encodeRows([swapRow(parsed.data, now)])
  expect(encoded.columns).toStrictEqual(SWAP_COLUMNS)
  return { text: encoded.text }
}

describe('swap lines (the fused swap path)', () => {
  const cases = swapCases()

  it('lists the columns in the order of swapRow', () => {
    expect(SWAP_COLUMNS).toStrictEqual(Object.keys(swapRow(swapRecord.parse(swapInput('columns')), now)))
  })

  it('writes, record by record, exactly the text the schema path writes, and rejects what it rejects with the same reason', () => {
    let plain = 0
    const scratch = emptyPlainSwap()
    for (const input of cases) {
      if (readPlainSwap(input, scratch)) plain++
      const { encoded, rejected } = swapLines([input], now)
      const expected = schemaPath(input)
      if ('text' in expected) {
        expect(encoded.text, JSON.stringify(input)).toBe(expected.text)
        expect(encoded.count).toBe(1)
        expect(rejected).toStrictEqual([])
      } else {
        expect(encoded.text, JSON.stringify(input)).toBe('')
        expect(encoded.count).toBe(0)
        expect(rejected).toStrictEqual([{ record: input, reason: expected.reason, index: 0 }])
      }
    }
    // the fused path must actually carry the common case
    expect(plain).toBeGreaterThan(100)
  })

  it('writes a whole batch in order, as the schema path would', () => {
    const { encoded, rejected } = swapLines(cases, now)
    const expected = cases.map(schemaPath)
    const texts = expected.flatMap((e) => ('text' in e ? [e.text] : []))
    expect(encoded.text).toBe(texts.join(''))
    expect(encoded.count).toBe(texts.length)
    expect(rejected.map((r) => r.reason)).toStrictEqual(expected.flatMap((e) => ('reason' in e ? [e.reason] : [])))
  })

  it('keeps every digit of uint256 amounts, exact times and free text', () => {
    const max = ((1n << 256n) - 1n).toString()
    const input = swapInput('digits', {
      timestamp: 1_717_000_000_123,
      token_sold: { contract_address: `0x${'Ab'.repeat(20)}`, amount_raw: '9'.repeat(77) },
      token_bought: { contract_address: `0x${'cd'.repeat(20)}`, amount_raw: max },
      dex: 'uni"swap\\v3\nx',
    })
    const { encoded } = swapLines([input], now)
    expect(encoded.text.endsWith('\n')).toBe(true)
    const values = JSON.parse(encoded.text) as unknown[]
    expect(values[SWAP_COLUMNS.indexOf('timestamp')]).toBe(1_717_000_000_123)
    expect(values[SWAP_COLUMNS.indexOf('token_sold_address')]).toBe(`0x${'ab'.repeat(20)}`)
    expect(values[SWAP_COLUMNS.indexOf('token_sold_amount')]).toBe('9'.repeat(77))
    expect(values[SWAP_COLUMNS.indexOf('token_bought_amount')]).toBe(max)
    expect(values[SWAP_COLUMNS.indexOf('dex')]).toBe('uni"swap\\v3\nx')
    expect(values[SWAP_COLUMNS.indexOf('ingested_at')]).toBe(now)
  })
})
