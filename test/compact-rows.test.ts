import { describe, expect, it } from 'vitest'
import { compactRows, encodeRows } from '../ingest/pipeline/compact-rows.js'

describe('compactRows', () => {
  it('lists each row by the first row’s keys, whatever order its own keys are in', () => {
    const rows = [
      { a: 1, b: 'x', c: null },
      { c: 3, a: 2, b: 'y' },
    ]
    expect(compactRows(rows)).toEqual({
      columns: ['a', 'b', 'c'],
      values: [
        [1, 'x', null],
        [2, 'y', 3],
      ],
    })
  })

  it('encodes rows as the text @clickhouse/client sends for JSONCompactEachRow: one JSON array per line', () => {
    const rows = [
      { a: 1, b: 'x "quoted"', c: null },
      { c: 3, a: 2, b: 'y\n' },
    ]
    expect(encodeRows(rows)).toEqual({ columns: ['a', 'b', 'c'], text: '[1,"x \\"quoted\\"",null]\n[2,"y\\n",3]\n', count: 2 })
  })
})
