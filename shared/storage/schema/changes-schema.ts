import type { Tables } from '../tables.js'

/**
 * The change feed, declared once: one row per stored change, written by materialized
 * views inside the very insert that stores it, so a change cannot be stored without its
 * row (a process killed mid-insert can leave a stored row without its change, never a
 * change without its row: a view's part commits after its source's). Consumers read on
 * from the position they recorded (shared/changes/change-feed.ts).
 *
 * The position is MergeTree's block number (`_block_number`): taken under the parts lock
 * as the part becomes visible, so number order is commit order on one node, and kept
 * through merges (docs/decisions/0013). The sort key leads with the server's time so that
 * the block-number minmax index skips the old parts of a read from a recent position.
 *
 * - `swap`: one per leg of a swap version stored or retracted (rows and tombstones), and a
 *   variant replaced at the same time, whose wallet or tokens the kept variant does not
 *   share; `tokens` is the leg's token (none for a wallet's same-time tombstone).
 * - `price`: a token's price at `timestamp`.
 * - `token`: a token's metadata (its decimals change every candle of it).
 * - `holding`: a wallet's balance of a token.
 */
export const CHANGE_KINDS = ['swap', 'price', 'token', 'holding'] as const
export type ChangeKind = (typeof CHANGE_KINDS)[number]

export const SWAP_CHANGES_VIEW = 'mv_changes_swaps'

const KIND_TYPE = `Enum8(${CHANGE_KINDS.map((k, i) => `'${k}' = ${i + 1}`).join(', ')})`

/** How long changes are kept; a consumer whose position is older reads everything again (change-feed.ts). */
export const CHANGES_KEPT_DAYS = 30

export function changesSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.changes} (
      kind ${KIND_TYPE},
      timestamp DateTime64(3, 'UTC') DEFAULT 0,
      hash String DEFAULT '',
      chain_id UInt32 DEFAULT 0,
      wallet_address String DEFAULT '',
      tokens Array(String),
      is_deleted UInt8 DEFAULT 0,
      changed_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree
    ORDER BY changed_at
    TTL toDateTime(changed_at) + INTERVAL ${CHANGES_KEPT_DAYS} DAY
    SETTINGS enable_block_number_column = 1, add_minmax_index_for_block_number_column = 1`,

    // Where each consumer has read the feed to (the wallet statistics keep theirs with their runs).
    `CREATE TABLE IF NOT EXISTS ${t.changePositions} (
      consumer String,
      position UInt64,
      recorded_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(recorded_at)
    ORDER BY consumer`,

    // Each leg of every swap row and tombstone, and the same-time tombstones of the legs, from
    // the last path the swaps' views write (swaps-schema.ts): every path holds what it names.
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.${SWAP_CHANGES_VIEW} TO ${t.changes} AS
      SELECT 'swap' AS kind, timestamp, hash, chain_id, wallet_address, [token_address] AS tokens, is_deleted
      FROM ${t.swapLegs}`,

    // A same-time variant's tombstone in the wallet path, which makes no leg (it carries no tokens).
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_changes_wallet_tombstones TO ${t.changes} AS
      SELECT 'swap' AS kind, timestamp, hash, chain_id, wallet_address, CAST([], 'Array(String)') AS tokens, is_deleted
      FROM ${t.swapsByWallet}
      WHERE token_sold_address = '' AND token_bought_address = ''`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_changes_prices TO ${t.changes} AS
      SELECT 'price' AS kind, timestamp, [contract_address] AS tokens FROM ${t.prices}`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_changes_tokens TO ${t.changes} AS
      SELECT 'token' AS kind, chain_id, [contract_address] AS tokens FROM ${t.tokens}`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_changes_holdings TO ${t.changes} AS
      SELECT 'holding' AS kind, as_of AS timestamp, wallet_address, [contract_address] AS tokens FROM ${t.holdings}`,
  ]
}
