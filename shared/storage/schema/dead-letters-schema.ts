import type { Tables } from '../tables.js'

/**
 * Records that could not be stored, one row per dead letter, the latest update of each
 * kept (ReplacingMergeTree(updated_at)). `payload_format` tells how to read `payload`
 * ('json': a record as a producer sent it, as JSON; 'ndjson': one NDJSON line; 'csv': one
 * CSV record, read under `csv_header`); a dead letter of a backfill file names the `line`
 * it was read from (the first line of a CSV record).
 */
export function deadLettersSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.deadLetters} (
      id String,
      record_type LowCardinality(String),
      payload String,
      reason String,
      source String,
      failed_at DateTime64(3, 'UTC'),
      redriven_at Nullable(DateTime64(3, 'UTC')),
      updated_at DateTime64(3, 'UTC'),
      payload_format LowCardinality(String) DEFAULT 'json',
      line Nullable(UInt64),
      csv_header String DEFAULT ''
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY id`,
  ]
}
