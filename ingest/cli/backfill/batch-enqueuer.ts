import { randomBytes } from 'node:crypto'
import type { IngestProducer } from '../../../shared/records/ingest-producer.js'
import type { SourceLines } from '../../../shared/platform/queues.js'
import type { RecordType } from '../../../shared/platform/queues.js'
import type { SourceLine } from './source-line.js'

/** A job the backfill enqueued: its id, how many records it carries and where they came from. */
export interface EnqueuedJob {
  id: string
  records: number
  source: string
}

export interface BatchEnqueuerOptions {
  /**
   * Job ids are `<jobIdBase>-<batch number>`; by default `backfill-<new run id>-1`. The
   * backfill command gives every file of a run `backfill-<run id>-<file number>`.
   */
  jobIdBase?: string
  /** Told of each job once Redis holds it. */
  onEnqueued?: (job: EnqueuedJob) => void
  /** How the worker reads the lines: NDJSON (the default) or CSV under this header row. */
  csvHeader?: string
}

/** A new run id: time and randomness, lower-case letters and digits. */
export function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
}

/**
 * Groups the records of one file into jobs of `batchSize` and enqueues them with at
 * most `maxInFlight` enqueue requests outstanding: `add` waits when the limit is
 * reached, which in turn pauses reading the file.
 * A job carries its lines' raw text and line numbers (the worker parses them, so a refused
 * record is dead-lettered with its line as read and its line number); its source is the
 * file. An enqueued job is reported with its line range, e.g. `swaps.ndjson:1-5000`.
 * Each job gets an id of its own (run, file, batch), never BullMQ's counter: after Redis
 * loses its data the counter starts again, and a waiter polling counter ids would take
 * other jobs for its own.
 */
export class BatchEnqueuer {
  /** The jobs enqueued, in file order. */
  readonly jobs: EnqueuedJob[] = []
  records = 0
  private batch: string[] = []
  private numbers: number[] = []
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown
  private readonly jobIdBase: string
  private readonly onEnqueued: ((job: EnqueuedJob) => void) | undefined
  private readonly csvHeader: string | undefined

  constructor(
    private readonly producer: IngestProducer,
    private readonly type: RecordType,
    private readonly file: string,
    private readonly batchSize: number,
    private readonly maxInFlight: number,
    options: BatchEnqueuerOptions = {},
  ) {
    this.jobIdBase = options.jobIdBase ?? `backfill-${newRunId()}-1`
    this.onEnqueued = options.onEnqueued
    this.csvHeader = options.csvHeader
  }

  get jobIds(): string[] {
    return this.jobs.map((j) => j.id)
  }

  async add(item: SourceLine): Promise<void> {
    this.batch.push(item.text)
    this.numbers.push(item.line)
    this.records++
    if (this.batch.length >= this.batchSize) await this.dispatch()
  }

  /** Enqueues the last partial batch and waits for every enqueue request to finish. */
  async finish(): Promise<void> {
    if (this.batch.length > 0) await this.dispatch()
    await Promise.all(this.inFlight)
    this.throwIfFailed()
  }

  private async dispatch(): Promise<void> {
    this.throwIfFailed()
    const texts = this.batch
    const numbers = this.numbers
    const job: EnqueuedJob = {
      id: `${this.jobIdBase}-${this.jobs.length + 1}`,
      records: texts.length,
      source: `${this.file}:${numbers[0]}-${numbers[numbers.length - 1]}`,
    }
    this.batch = []
    this.numbers = []
    this.jobs.push(job)
    const lines: SourceLines =
      this.csvHeader === undefined ? { format: 'ndjson', numbers } : { format: 'csv', numbers, csvHeader: this.csvHeader }
    const request = this.producer
      .sendLines(this.type, texts, this.file, lines, { jobId: job.id })
      .then(() => this.onEnqueued?.(job))
      .catch((error: unknown) => {
        this.failure ??= error
      })
      .finally(() => this.inFlight.delete(request))
    this.inFlight.add(request)
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight)
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure
  }
}
