import type { IngestProducer } from '../shared/ingest-producer.js'
import { isRecordType, type RecordType } from '../shared/records.js'
import type { DeadLetter, DeadLetterFilter, DeadLetterStore } from './dead-letter-store.js'

/** What `npm run dead-letters` does, apart from parsing arguments and opening connections. */

export type Write = (line: string) => void

export async function listDeadLetters(store: DeadLetterStore, filter: DeadLetterFilter, write: Write): Promise<number> {
  const letters = await store.list(filter)
  for (const letter of letters) {
    const redriven = letter.redrivenAt ? `  redriven ${letter.redrivenAt}` : ''
    write(`${letter.id}  ${letter.recordType}  failed ${letter.failedAt}  source ${letter.source}${redriven}`)
    write(`  reason:  ${letter.reason}`)
    write(`  payload: ${letter.payload}`)
  }
  const total = await store.count({ type: filter.type })
  write(`${letters.length} shown of ${total} dead letter${total === 1 ? '' : 's'}${filter.type ? ` of type ${filter.type}` : ''}`)
  return letters.length
}

export interface RedriveSummary {
  redriven: number
  jobs: number
  /** Dead letters of a job whose record type is unknown: there is no queue to send them to. */
  skipped: number
}

const RECORDS_PER_JOB = 1_000

/**
 * Re-enqueues dead letters (those not yet re-driven, or the one named by id) as they were
 * received. Each is marked re-driven first, so one that fails validation again is stored
 * again after the mark (same id: once, pending again) rather than hidden by it.
 */
export async function redriveDeadLetters(
  store: DeadLetterStore,
  producer: IngestProducer,
  filter: Pick<DeadLetterFilter, 'type' | 'id' | 'limit'>,
  write: Write,
): Promise<RedriveSummary> {
  const letters = await store.list({ ...filter, pendingOnly: filter.id === undefined })
  const sendable = letters.filter((l) => isRecordType(l.recordType))
  const skipped = letters.length - sendable.length
  if (sendable.length > 0) await store.markRedriven(sendable, Date.now())

  const groups = new Map<string, { type: RecordType; source: string; records: unknown[] }>()
  for (const letter of sendable) {
    const type = letter.recordType as RecordType
    const source = `redrive:${letter.source}`
    const key = `${type}\n${source}`
    const group = groups.get(key) ?? { type, source, records: [] }
    group.records.push(JSON.parse(letter.payload) as unknown)
    groups.set(key, group)
  }
  let jobs = 0
  try {
    for (const group of groups.values()) {
      for (let i = 0; i < group.records.length; i += RECORDS_PER_JOB) {
        await producer.send(group.type, group.records.slice(i, i + RECORDS_PER_JOB), group.source)
        jobs++
      }
    }
  } catch (err) {
    // Nothing is lost: the dead letters stay stored; un-mark them so they show as pending.
    await store.markRedriven(sendable, Date.now(), false)
    throw err
  }
  write(`re-enqueued ${sendable.length} dead letter${sendable.length === 1 ? '' : 's'} in ${jobs} job${jobs === 1 ? '' : 's'}`)
  if (skipped > 0) write(`skipped ${skipped} of an unknown record type (${describeSkipped(letters)})`)
  return { redriven: sendable.length, jobs, skipped }
}

function describeSkipped(letters: DeadLetter[]): string {
  return [...new Set(letters.filter((l) => !isRecordType(l.recordType)).map((l) => l.recordType))].join(', ')
}
