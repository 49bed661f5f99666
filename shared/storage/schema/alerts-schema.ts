import type { Tables } from '../tables.js'

const DT = "DateTime64(3, 'UTC')"

/**
 * The alerts: the rules an operator keeps (one row per rule, the latest update kept, a
 * delete a tombstone) and their firings, each keyed by what fired (shared/alerts/alert-firing.ts),
 * so evaluating the same changes again stores the same rows. A firing keeps its evidence
 * (the swaps' keys, to find it when one is retracted, and the swaps as JSON); a retraction is
 * a newer version of the firing with status 'retracted'.
 *
 * Each firing version keeps the block number of the insert that wrote it (`_block_number`,
 * in commit order on one server: docs/decisions/0013): GET /stream/alerts's positions. A
 * merge keeps the numbers of the versions it keeps.
 */
export function alertsSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.alertRules} (
      id String,
      name String,
      kind LowCardinality(String),
      definition String,
      webhooks String,
      active UInt8,
      created_at ${DT},
      updated_at ${DT},
      is_deleted UInt8 DEFAULT 0
    ) ENGINE = ReplacingMergeTree(updated_at, is_deleted)
    ORDER BY id`,

    `CREATE TABLE IF NOT EXISTS ${t.alertFirings} (
      id String,
      rule_id String,
      kind LowCardinality(String),
      token String,
      wallet_address String,
      window_start ${DT},
      window_end ${DT},
      value Float64,
      swap_keys Array(String),
      evidence String,
      status LowCardinality(String),
      sequence UInt64,
      fired_at ${DT},
      retracted_at Nullable(${DT}),
      updated_at ${DT}
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY id
    SETTINGS enable_block_number_column = 1, add_minmax_index_for_block_number_column = 1`,
  ]
}
