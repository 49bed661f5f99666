import type { DeadLetter, DeadLetterFilter } from '../../shared/dead-letters/dead-letters.js'
import type { DeadLetterRedriveJobData, DeadLetterRedriveResult } from '../../shared/platform/queues.js'
import type { DeadLetterAccess } from './dead-letter-access.js'

/** What `npm run dead-letters` does, apart from parsing arguments and choosing how to reach the dead letters. */

export type Write = (line: string) => void

export function describeDeadLetter(letter: DeadLetter, write: Write): void {
  const redriven = letter.redriven_at ? `  redriven ${letter.redriven_at}` : ''
  const line = letter.line === null ? '' : `  line ${letter.line}`
  write(`${letter.id}  ${letter.record_type}  failed ${letter.failed_at}  source ${letter.source}${line}${redriven}`)
  write(`  reason:  ${letter.reason}`)
  const raw = letter.payload_format === 'json' ? 'payload' : `${letter.payload_format} text`
  write(`  ${raw}: ${letter.payload}`)
  if (letter.csv_header !== null) write(`  csv header: ${letter.csv_header}`)
}

/** One page, newest first; returns how many were shown. */
export async function listDeadLetters(
  access: DeadLetterAccess,
  filter: DeadLetterFilter,
  page: { limit: number; offset: number },
  write: Write,
): Promise<number> {
  const { letters, total } = await access.page(filter, page.limit, page.offset)
  for (const letter of letters) describeDeadLetter(letter, write)
  const what = [filter.type && `of type ${filter.type}`, filter.pendingOnly && 'pending'].filter(Boolean).join(', ')
  const from = page.offset > 0 ? ` (from ${page.offset + 1})` : ''
  write(`${letters.length} shown${from} of ${total} dead letter${total === 1 ? '' : 's'}${what ? ` ${what}` : ''}`)
  return letters.length
}

export async function showCounts(access: DeadLetterAccess, reasons: number, write: Write): Promise<void> {
  const counts = await access.counts(reasons)
  write(`${counts.total} dead letter${counts.total === 1 ? '' : 's'}, ${counts.pending} pending`)
  for (const t of counts.by_type) write(`  ${t.record_type}: ${t.count} (${t.pending} pending)`)
  if (counts.by_reason.length > 0) write(`by reason (${counts.by_reason.length} of ${counts.distinct_reasons}):`)
  for (const r of counts.by_reason) write(`  ${r.count} (${r.pending} pending)  ${r.record_type}  ${r.reason}`)
}

export async function redrive(
  access: DeadLetterAccess,
  selection: DeadLetterRedriveJobData,
  wait: boolean,
  write: Write,
): Promise<DeadLetterRedriveResult | undefined> {
  const result = await access.redrive(selection, wait, (id) => write(`re-drive ${id} queued; the running service's ingest role runs it`))
  if (result === undefined) {
    write('not waiting for it (--no-wait)')
    return undefined
  }
  const { redriven, jobs, pages, skipped } = result
  write(`re-enqueued ${redriven} dead letter${redriven === 1 ? '' : 's'} in ${jobs} job${jobs === 1 ? '' : 's'} (${pages} page${pages === 1 ? '' : 's'} read)`)
  if (skipped > 0) write(`skipped ${skipped} of an unknown record type (no queue takes them)`)
  return result
}
