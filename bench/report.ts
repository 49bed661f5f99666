/** Small printing helpers for the benchmarks: a markdown table, numbers, percentiles. */

export type Align = 'left' | 'right'

/** A markdown table whose columns are padded to line up in a terminal too. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3))
  const pad = (cell: string, i: number) => (align[i] === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))
  const line = (cells: readonly string[]) => `| ${header.map((_, i) => pad(cells[i] ?? '', i)).join(' | ')} |`
  const rule = `| ${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

/** The q-quantile (0..1) of some samples, nearest rank; NaN for none. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Milliseconds with a precision that suits their size; "—" for nothing measured. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)
}

/** An integer with thousands separators; "—" for nothing measured. */
export function count(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  return Math.round(value).toLocaleString('en')
}

export function seconds(millis: number): string {
  return `${(millis / 1000).toFixed(1)} s`
}
