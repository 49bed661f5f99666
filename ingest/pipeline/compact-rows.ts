/**
 * Rows of one table as JSONCompactEachRow values: one array per row, in the order of
 * `columns` (the keys of the first row; every row of a table is built by the same
 * function in table-rows.ts, so they all have the same keys). Embedded ClickHouse parses
 * this about a third faster than JSONEachRow, and the body is ~40% smaller.
 */
export interface CompactRows {
  columns: [string, ...string[]]
  values: unknown[][]
}

/** Rows already written as JSONCompactEachRow text: one `[...]\n` line per row, in `columns` order. */
export interface EncodedRows {
  columns: readonly string[]
  text: string
  count: number
}

export function compactRows(rows: readonly object[]): CompactRows {
  const first = rows[0]
  if (first === undefined) throw new Error('compactRows: no rows')
  const columns = Object.keys(first)
  if (columns.length === 0) throw new Error('compactRows: a row without columns')
  const values = new Array<unknown[]>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Record<string, unknown>
    const value = new Array<unknown>(columns.length)
    for (let c = 0; c < columns.length; c++) value[c] = row[columns[c]!]
    values[i] = value
  }
  return { columns: columns as [string, ...string[]], values }
}

/** The text @clickhouse/client would send for these rows as JSONCompactEachRow. */
export function encodeRows(rows: readonly object[]): EncodedRows {
  const { columns, values } = compactRows(rows)
  return { columns, text: values.map(compactLine).join(''), count: values.length }
}

export function compactLine(values: readonly unknown[]): string {
  return JSON.stringify(values) + '\n'
}
