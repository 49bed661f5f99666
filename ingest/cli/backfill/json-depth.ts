/**
 * How deep a backfill record may nest. Records need 2 levels (a swap's legs); 32 leaves
 * room for anything reasonable. Much deeper input (thousands of levels) overflows the
 * stack of the recursive code that handles it later (BullMQ's JSON.stringify, for one),
 * which would abort the whole backfill, so such a line is refused when read.
 */
export const MAX_RECORD_DEPTH = 32

/**
 * Whether a parsed JSON value nests objects and arrays more than `limit` levels deep.
 * The walk stops at the limit, so it never recurses deeper than `limit` itself, and it
 * costs a few nodes for a plain record (no pass over the text).
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (limit === 0) return true
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, limit - 1)) return true
    return false
  }
  const record = value as Record<string, unknown>
  for (const key in record) if (nestedDeeperThan(record[key], limit - 1)) return true
  return false
}
