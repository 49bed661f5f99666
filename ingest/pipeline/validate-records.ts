import { describeIssues, recordSchemas, type RecordOf } from '../../shared/records/records.js'
import { type RecordType } from '../../shared/platform/queues.js'
import { fastSwap } from './swap-fast-path.js'

export interface Rejected {
  record: unknown
  reason: string
  /** Its index among the records validated. */
  index: number
}

export interface Validated<T extends RecordType> {
  valid: RecordOf<T>[]
  /** For each valid record, its index among the records validated. */
  validIndexes: number[]
  rejected: Rejected[]
}

/** Splits records as received into normalized valid ones and rejected ones with their reasons. */
export function validateRecords<T extends RecordType>(type: T, records: readonly unknown[]): Validated<T> {
  const schema = recordSchemas[type]
  const valid: RecordOf<T>[] = []
  const validIndexes: number[] = []
  const rejected: Rejected[] = []
  const fast = type === 'swap' ? fastSwap : undefined
  for (let index = 0; index < records.length; index++) {
    const record = records[index]
    const quick = fast?.(record)
    if (quick) {
      valid.push(quick as RecordOf<T>)
      validIndexes.push(index)
      continue
    }
    const parsed = schema.safeParse(record)
    if (parsed.success) {
      valid.push(parsed.data as RecordOf<T>)
      validIndexes.push(index)
    } else rejected.push({ record, reason: describeIssues(parsed.error), index })
  }
  return { valid, validIndexes, rejected }
}
