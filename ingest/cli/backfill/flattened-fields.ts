/**
 * Turns a CSV row with dotted headers (`token_sold.amount_raw`) into a nested record
 * (`{ token_sold: { amount_raw } }`). An empty cell means the field is absent.
 */
export function unflatten(row: Record<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {}
  for (const [header, value] of Object.entries(row)) {
    if (value === '') continue
    const path = header.split('.')
    let target = record
    for (const part of path.slice(0, -1)) {
      const next = target[part]
      if (typeof next === 'object' && next !== null) {
        target = next as Record<string, unknown>
      } else {
        const created: Record<string, unknown> = {}
        target[part] = created
        target = created
      }
    }
    target[path[path.length - 1]!] = value
  }
  return record
}
