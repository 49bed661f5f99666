import { describeIssues, recordSchemas, type RecordOf, type RecordType } from '../shared/records.js'
import { fastSwap } from './swap-fast-path.js'

export interface Rejected {
  record: unknown
  reason: string
}

export interface Validated<T extends RecordType> {
  valid: RecordOf<T>[]
  rejected: Rejected[]
}

/** Splits records as received into normalized valid ones and rejected ones with their reasons. */
export function validateRecords<T extends RecordType>(type: T, records: readonly unknown[]): Validated<T> {
  const schema = recordSchemas[type]
  const valid: RecordOf<T>[] = []
  const rejected: Rejected[] = []
  const fast = type === 'swap' ? fastSwap : undefined
  for (const record of records) {
    const quick = fast?.(record)
    if (quick) {
      valid.push(quick as RecordOf<T>)
      continue
    }
    const parsed = schema.safeParse(record)
    if (parsed.success) valid.push(parsed.data as RecordOf<T>)
    else rejected.push({ record, reason: describeIssues(parsed.error) })
  }
  rejectedBeside.set(valid, rejected)
  return { valid, rejected }
}

/** The rejected list returned with each valid list, for refuseValid. */
const rejectedBeside = new WeakMap<readonly unknown[], Rejected[]>()

/**
 * Moves valid records that a later step refuses (a token id another token holds, see
 * token-ids.ts) out of a `valid` list returned by validateRecords, in place, into the
 * `rejected` list returned with it, with their reasons, so they are dead-lettered.
 */
export function refuseValid<T>(valid: T[], refused: ReadonlyMap<T, string>): void {
  if (refused.size === 0) return
  const rejected = rejectedBeside.get(valid)
  if (rejected === undefined) throw new Error('refuseValid: the list was not returned by validateRecords')
  let kept = 0
  for (const record of valid) {
    const reason = refused.get(record)
    if (reason === undefined) valid[kept++] = record
    else rejected.push({ record, reason })
  }
  valid.length = kept
}
