import type { Tables } from '../tables.js'

/**
 * Token metadata and prices. Each table is keyed by what identifies its record in the
 * world, in a ReplacingMergeTree, so writing a record again replaces it instead of
 * doubling it (reads use FINAL).
 */
export function tokensSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.tokens} (
      contract_address String,
      id String,
      chain_id UInt32,
      name String,
      symbol String,
      decimals UInt8,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY contract_address`,

    `CREATE TABLE IF NOT EXISTS ${t.prices} (
      contract_address String,
      timestamp DateTime64(3, 'UTC'),
      price_usd Float64,
      volume_usd Nullable(Float64),
      ingested_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(ingested_at)
    ORDER BY (contract_address, timestamp)`,
  ]
}
