import type { Migration } from './migration.js'

/**
 * Dead letters of a backfill file name the line a record was read from and hold its raw
 * text as received: `payload_format` tells how to read `payload` ('json': a record as a
 * producer sent it, as JSON; 'ndjson': one NDJSON line; 'csv': one CSV record, read under
 * `csv_header`), and `line` is its line number in the file (the first line of a CSV record).
 */
export const deadLetterLines: Migration = {
  version: 6,
  name: 'dead_letter_lines',
  statements: (t) => [
    `ALTER TABLE ${t.deadLetters}
      ADD COLUMN IF NOT EXISTS payload_format LowCardinality(String) DEFAULT 'json',
      ADD COLUMN IF NOT EXISTS line Nullable(UInt64),
      ADD COLUMN IF NOT EXISTS csv_header String DEFAULT ''`,
  ],
}
