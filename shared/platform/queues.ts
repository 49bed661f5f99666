
/**
 * Every queue, job name and payload, declared once. Producers and workers both import
 * this module, so a payload cannot drift between them. Queue keys live under the
 * configured REDIS_PREFIX (BullMQ's `prefix` option).
 */

export const QueueNames = {
  ingest: 'ingest-records',
  indicators: 'indicators',
  /** Re-drives of dead letters, run by the ingest role (so they can be asked for while the embedded store is held). */
  deadLetterRedrive: 'dead-letter-redrive',
  /** One job per (alert firing or retraction, webhook): shared/alerts/alert-deliveries.ts. */
  alertDeliveries: 'alert-deliveries',
} as const
export type QueueName = (typeof QueueNames)[keyof typeof QueueNames]

/** The record types a producer can send; each has its schema in records/records.ts. */
export const RECORD_TYPES = ['token', 'swap', 'holding', 'price', 'swap_retraction'] as const
export type RecordType = (typeof RECORD_TYPES)[number]

/** Ingest jobs are named by the record type they carry. */
export type IngestJobName = RecordType

export interface IngestJobData {
  type: RecordType
  /** Records as received; the worker validates each one. */
  records: unknown[]
  /** Where the records came from (a producer name or a backfill file), kept with dead letters. */
  source: string
  /**
   * Set when the records are lines of a file as read (the backfill): each record is then
   * the raw text of an NDJSON line or CSV record, which the worker parses, and a record
   * that is refused is dead-lettered with that text and its line number.
   */
  lines?: SourceLines
}

export interface SourceLines {
  format: 'ndjson' | 'csv'
  /** The line number of each record (1-based; a CSV record's first line). */
  numbers: number[]
  /** The CSV file's header row, as read. */
  csvHeader?: string
}

/** Which dead letters a re-drive takes: every pending one of the filter, or the ones named by id (even if re-driven before). */
export interface DeadLetterRedriveJobData {
  type?: string
  reason?: string
  source?: string
  ids?: string[]
}

/** What a re-drive did. */
export interface DeadLetterRedriveResult {
  /** Dead letters re-enqueued. */
  redriven: number
  /** Ingest jobs they were sent in. */
  jobs: number
  /** Pages of dead letters read (each at most one page size). */
  pages: number
  /** Dead letters of an unknown record type: there is no queue to send them to. */
  skipped: number
}

export const IndicatorJobNames = {
  /** Scheduled after each 4-hour boundary: every token that has candles. */
  recomputeAll: 'recompute-all',
  /** On demand: one token. */
  recomputeToken: 'recompute-token',
  /** Tokens whose closed candles changed (late or re-delivered records): each from its stored candles. */
  recomputeTokens: 'recompute-tokens',
  /** Scheduled after each 4-hour boundary: every token steps to the new interval from its carried state. */
  advance: 'advance',
} as const
export type IndicatorJobName = (typeof IndicatorJobNames)[keyof typeof IndicatorJobNames]

export interface IndicatorJobData {
  'recompute-all': Record<string, never>
  'recompute-token': { contract_address: string }
  /** Each token with the start (ms) of its earliest changed interval; null: its whole history. */
  'recompute-tokens': { changes: Array<[string, number | null]> }
  advance: Record<string, never>
}

/**
 * How long failed ingest jobs stay in BullMQ's failed set, records included (a job of 5,000
 * swaps is ~2.5 MB): the newest `keep`, none older than `maxAgeSeconds`. Within that they
 * can be inspected and retried; keeping every one (removeOnFail: false) grew Redis without bound.
 */
export function ingestFailedJobRetention(failedJobs: { keep: number; maxAgeSeconds: number }): { count: number; age: number } {
  return { count: failedJobs.keep, age: failedJobs.maxAgeSeconds }
}

/** What an ingest job returns once its valid rows are durably in ClickHouse. */
export interface IngestJobResult {
  accepted: number
  /** Records set aside in the dead-letter store with their reasons. */
  rejected: number
}

/** What an indicator job returns: `written` tells whether a result is now cached. */
export interface IndicatorJobResult {
  written: number
  /** For recompute-token when nothing was written: why (e.g. "the token has no candles"). */
  reason?: string
  /** For recompute-all: tokens left to the computation of them under way at that moment (their lock was held). */
  skipped?: number
}
