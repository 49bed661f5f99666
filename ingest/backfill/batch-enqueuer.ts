import type { IngestProducer } from '../../shared/ingest-producer.js'
import type { RecordType } from '../../shared/records.js'
import type { SourceRecord } from './source-record.js'

/**
 * Groups the records of one file into jobs of `batchSize` and enqueues them with at
 * most `maxInFlight` enqueue requests outstanding: `add` waits when the limit is
 * reached, which in turn pauses reading the file.
 * A job's source names the file and its line range, e.g. `swaps.ndjson:1-5000`.
 */
export class BatchEnqueuer {
  readonly jobIds: string[] = []
  records = 0
  private batch: unknown[] = []
  private firstLine = 0
  private lastLine = 0
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown

  constructor(
    private readonly producer: IngestProducer,
    private readonly type: RecordType,
    private readonly file: string,
    private readonly batchSize: number,
    private readonly maxInFlight: number,
  ) {}

  async add(item: SourceRecord): Promise<void> {
    if (this.batch.length === 0) this.firstLine = item.line
    this.batch.push(item.record)
    this.lastLine = item.line
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
    const records = this.batch
    const source = `${this.file}:${this.firstLine}-${this.lastLine}`
    this.batch = []
    // Job ids are kept in file order whatever order the enqueue requests finish in.
    const slot = this.jobIds.length
    this.jobIds.push('')
    const request = this.producer
      .send(this.type, records, source)
      .then((id) => {
        this.jobIds[slot] = id
      })
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
