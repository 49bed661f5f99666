import type { DeadLetter, DeadLetterFilter, DeadLetterReader } from '../../shared/dead-letters/dead-letters.js'
import type { DeadLetterRedriveJobData, DeadLetterRedriveResult, SourceLines } from '../../shared/platform/queues.js'
import { isRecordType } from '../../shared/records/records.js'
import { type RecordType } from '../../shared/platform/queues.js'
import type { DeadLetterStore } from './dead-letter-store.js'

/** Where re-driven records go: the normal ingest queue (IngestProducer.send fits). */
export interface RedriveSink {
  send(type: RecordType, records: unknown[], source: string): Promise<string>
  sendLines(type: RecordType, texts: string[], source: string, lines: SourceLines): Promise<string>
}

export interface RedriveOptions {
  /** Dead letters read per query, and held in memory at most. */
  pageSize?: number
  /** Records per ingest job. */
  jobSize?: number
}

export const REDRIVE_PAGE_SIZE = 1_000

/**
 * Re-enqueues dead letters as they were received, through the ingest queue, so the worker
 * validates them again: a valid one is stored (once, however often it is re-driven), an
 * invalid one is dead-lettered again under the same id and shows as pending again.
 *
 * Streamed: the dead letters are read a page at a time in id order (a keyset walk), each
 * page marked re-driven and then enqueued before the next is read, so memory holds one page
 * whatever the count. Without ids, only pending ones are taken; with ids, those even if
 * re-driven before. Each is marked before it is enqueued, so a record failing again is
 * stored after the mark; if enqueueing a page fails, that page's marks are taken back.
 */
export async function redriveDeadLetters(
  reader: DeadLetterReader,
  store: DeadLetterStore,
  sink: RedriveSink,
  selection: DeadLetterRedriveJobData,
  options: RedriveOptions = {},
): Promise<DeadLetterRedriveResult> {
  const pageSize = options.pageSize ?? REDRIVE_PAGE_SIZE
  const jobSize = options.jobSize ?? REDRIVE_PAGE_SIZE
  const filter: DeadLetterFilter = {
    type: selection.type,
    reason: selection.reason,
    source: selection.source,
    ids: selection.ids,
    pendingOnly: selection.ids === undefined,
  }
  const result: DeadLetterRedriveResult = { redriven: 0, jobs: 0, pages: 0, skipped: 0 }
  let after = ''
  for (;;) {
    const page = await reader.after(filter, after, pageSize)
    if (page.length === 0) break
    result.pages++
    after = page[page.length - 1]!.id
    const sendable = page.filter((l) => isRecordType(l.record_type))
    result.skipped += page.length - sendable.length
    if (sendable.length > 0) {
      await store.markRedriven(sendable, Date.now())
      try {
        result.jobs += await sendPage(sink, sendable, jobSize)
      } catch (err) {
        // Nothing is lost: the dead letters stay stored; un-mark them so they show as pending.
        await store.markRedriven(sendable, Date.now(), false)
        throw err
      }
      result.redriven += sendable.length
    }
    if (page.length < pageSize) break
  }
  return result
}

/** One page's letters, grouped into jobs of one type, source and payload format. */
async function sendPage(sink: RedriveSink, letters: readonly DeadLetter[], jobSize: number): Promise<number> {
  const groups = new Map<string, DeadLetter[]>()
  for (const letter of letters) {
    const key = [letter.record_type, letter.source, letter.payload_format, letter.csv_header ?? ''].join('\n')
    const group = groups.get(key)
    if (group) group.push(letter)
    else groups.set(key, [letter])
  }
  let jobs = 0
  for (const group of groups.values()) {
    const first = group[0]!
    const type = first.record_type as RecordType
    // Marked once: a record re-driven again keeps `redrive:<where it first came from>`.
    const source = first.source.startsWith('redrive:') ? first.source : `redrive:${first.source}`
    for (let i = 0; i < group.length; i += jobSize) {
      const part = group.slice(i, i + jobSize)
      if (first.payload_format === 'json') {
        await sink.send(type, part.map((l) => JSON.parse(l.payload) as unknown), source)
      } else {
        // Lines of a file go back as the text they were read as, with their line numbers.
        const lines: SourceLines = {
          format: first.payload_format,
          numbers: part.map((l) => l.line ?? 0),
          ...(first.payload_format === 'csv' ? { csvHeader: first.csv_header ?? '' } : {}),
        }
        await sink.sendLines(type, part.map((l) => l.payload), source, lines)
      }
      jobs++
    }
  }
  return jobs
}
