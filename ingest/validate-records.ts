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
  return { valid, rejected }
}
