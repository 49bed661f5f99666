/**
 * `npm run backfill -- --type swap FILE...`: reads record files and enqueues them for
 * the ingest workers. Talks only to Redis, so it works beside a running service.
 */
import { loadConfig } from '../../shared/platform/config.js'
import { parseBackfillArguments, usage, UsageError } from './backfill/arguments.js'
import { FileProblem } from './backfill/open-file.js'
import { formatCount } from './backfill/progress.js'
import { assertRedisReachable, inspectFiles, runBackfill, type BackfillSummary } from './backfill/run-backfill.js'

async function main(argv: string[]): Promise<number> {
  let args
  try {
    args = parseBackfillArguments(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`backfill: ${error.message}\n\n${usage}\n`)
    return 2
  }
  if (args === 'help') {
    process.stdout.write(`${usage}\n`)
    return 0
  }
  let files
  try {
    files = await inspectFiles(args)
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error
    process.stderr.write(`backfill: ${error.message}; nothing was enqueued\n`)
    return 2
  }
  const config = loadConfig()
  await assertRedisReachable(config.redis.url)
  const summary = await runBackfill(args, files, config, process.stderr)
  printSummary(summary, args.type)
  const failed = (summary.outcome?.failed.length ?? 0) > 0
  const lost = (summary.lost?.length ?? 0) > 0
  return failed || lost ? 1 : 0
}

function printSummary(summary: BackfillSummary, type: string): void {
  const lines = [
    `files: ${summary.files}`,
    `records read: ${formatCount(summary.records)} in ${(summary.readMs / 1000).toFixed(1)} s (${formatCount(Math.round(summary.records / Math.max(summary.readMs / 1000, 0.001)))} rows/s)`,
    `jobs enqueued: ${formatCount(summary.jobs)}`,
  ]
  const outcome = summary.outcome
  if (!outcome) {
    lines.push('the ingest workers process the jobs in the background (add --wait to wait for the result)')
  } else {
    lines.push(`accepted: ${formatCount(outcome.accepted)}`)
    lines.push(
      `rejected: ${formatCount(outcome.rejected)}` +
        (outcome.rejected > 0 ? ` (reasons: npm run dead-letters -- list --type ${type})` : ''),
    )
    const lost = summary.lost ?? []
    if (lost.length > 0) {
      const records = lost.reduce((sum, job) => sum + job.records, 0)
      lines.push(
        `not confirmed: ${formatCount(records)} records in ${formatCount(lost.length)} jobs that disappeared from Redis before ` +
          'their result was read (Redis lost its data, or the jobs were removed): they may not be stored. ' +
          'Load those lines again (each record is stored once):',
      )
      for (const job of lost.slice(0, 10)) lines.push(`  ${job.source} (${formatCount(job.records)} records, job ${job.id})`)
      if (lost.length > 10) lines.push(`  ... and ${formatCount(lost.length - 10)} more jobs`)
    }
    if (outcome.failed.length > 0) {
      lines.push(`jobs failed permanently: ${outcome.failed.length}`)
      for (const f of outcome.failed.slice(0, 10)) lines.push(`  job ${f.id}: ${f.reason}`)
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`backfill: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
