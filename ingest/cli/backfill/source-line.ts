/** One record of a backfill file as read: its raw text (an NDJSON line, a CSV record) and its line number (1-based; a CSV record's first line). */
export interface SourceLine {
  text: string
  line: number
}
