/** One record read from a backfill file, with the line it ended on (1-based). */
export interface SourceRecord {
  /** The parsed record, or the raw text when it could not be parsed (the worker rejects it with a reason). */
  record: unknown
  line: number
}
