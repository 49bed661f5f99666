import type { Config } from '../../../shared/platform/config.js'
import { IngestProducer } from '../../../shared/records/ingest-producer.js'
import { createRedis } from '../../../shared/platform/redis.js'
import type { BackfillArguments } from './arguments.js'
import { BatchEnqueuer, newRunId } from './batch-enqueuer.js'
import { openCsv } from './csv-reader.js'
import { JobWaiter, type WaitTotals } from './job-waiter.js'
import { readNdjson } from './ndjson-reader.js'
import { inspectFile, openFile, type BackfillFile } from './open-file.js'
import { ProgressReporter, type ProgressOutput, type ProgressState } from './progress.js'
import type { SourceLine } from './source-line.js'

export interface BackfillSummary {
  files: number
  records: number
  jobs: number
  /** Time spent reading and enqueueing. */
  readMs: number
  /** Present with --wait. */
  outcome?: WaitTotals
  /** With --wait: jobs that vanished from Redis before their outcome was read (their records are not confirmed). */
  lost?: Array<{ id: string; records: number; source: string }>
}

/** How many enqueue requests may be outstanding at once. */
const MAX_IN_FLIGHT = 4

/** Every file is checked before anything is enqueued; a problem throws FileProblem. */
export async function inspectFiles(args: BackfillArguments): Promise<BackfillFile[]> {
  return Promise.all(args.files.map((path) => inspectFile(path, args.format)))
}

export async function assertRedisReachable(url: string, timeoutMs = 5_000): Promise<void> {
  const redis = createRedis(url, 'commands')
  redis.on('error', () => undefined)
  try {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis at ${url} did not answer within ${timeoutMs} ms`)), timeoutMs)
    })
    await Promise.race([redis.ping(), timeout]).finally(() => clearTimeout(timer))
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new Error(`cannot reach Redis at ${url} (REDIS_URL); nothing was enqueued. ${detail}`)
  } finally {
    redis.disconnect()
  }
}

/** Reads the files, enqueues their records in batches, and with --wait waits for the workers. */
export async function runBackfill(
  args: BackfillArguments,
  files: BackfillFile[],
  config: Pick<Config, 'redis' | 'ingest'>,
  output: ProgressOutput,
): Promise<BackfillSummary> {
  const producer = new IngestProducer(config)
  const state: ProgressState = {
    phase: 'reading',
    bytesRead: 0,
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
    records: 0,
    jobsEnqueued: 0,
    jobsFinished: 0,
    accepted: 0,
    rejected: 0,
  }
  let bytesBefore = 0
  let currentBytes = () => 0
  let enqueuer: BatchEnqueuer | undefined
  let recordsBefore = 0
  // With --wait, jobs are watched from the moment they are enqueued: a long run's first
  // jobs are then seen completing, not found gone (completed jobs are kept in limited number).
  const waiter = args.wait ? new JobWaiter(producer.queue) : undefined
  let reading = true
  const watching = waiter?.waitAll(() => reading)
  watching?.catch(() => undefined)
  const progress = new ProgressReporter(output, () => {
    state.bytesRead = bytesBefore + currentBytes()
    if (enqueuer) state.records = recordsBefore + enqueuer.records
    if (waiter) {
      state.jobsFinished = waiter.totals.finished
      state.accepted = waiter.totals.accepted
      state.rejected = waiter.totals.rejected
    }
    return state
  })
  progress.start()
  const startedAt = Date.now()
  // Job ids are unique per run, file and batch (see batch-enqueuer.ts).
  const runId = newRunId()
  let jobs = 0
  try {
    for (const [index, file] of files.entries()) {
      const opened = openFile(file)
      currentBytes = opened.bytesRead
      let csvHeader: string | undefined
      let lines: AsyncGenerator<SourceLine> | undefined
      if (file.format === 'csv') {
        const csv = await openCsv(opened.content).catch((error: unknown) => {
          throw new Error(`${file.path}: ${error instanceof Error ? error.message : String(error)}`)
        })
        csvHeader = csv?.header
        lines = csv?.rows
      } else lines = readNdjson(opened.content)
      enqueuer = new BatchEnqueuer(producer, args.type, file.path, args.batchSize, MAX_IN_FLIGHT, {
        jobIdBase: `backfill-${runId}-${index + 1}`,
        onEnqueued: (job) => waiter?.track(job),
        csvHeader,
      })
      try {
        if (lines) for await (const line of lines) await enqueuer.add(line)
        await enqueuer.finish()
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error)
        throw new Error(
          `${file.path}: ${detail} (stopped after ${enqueuer.records} records of this file; the complete batches before ` +
            'were enqueued, and loading the file again once fixed stores each record once)',
        )
      }
      jobs += enqueuer.jobs.length
      recordsBefore += enqueuer.records
      enqueuer = undefined
      bytesBefore += file.size
      currentBytes = () => 0
    }
    state.records = recordsBefore
    state.jobsEnqueued = jobs
    const summary: BackfillSummary = {
      files: files.length,
      records: recordsBefore,
      jobs,
      readMs: Date.now() - startedAt,
    }
    reading = false
    if (waiter && watching) {
      state.phase = 'waiting'
      if ((await producer.queue.getWorkersCount().catch(() => 1)) === 0) {
        output.write('backfill: no ingest worker is connected; the jobs wait until one starts (npm start, or npm run start:ingest)\n')
      }
      summary.outcome = await watching
      summary.lost = waiter.lost
    }
    return summary
  } finally {
    reading = false
    waiter?.stop()
    await watching?.catch(() => undefined)
    progress.stop()
    await producer.close()
  }
}
