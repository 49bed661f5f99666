import type { Tables } from '../tables.js'
import { holdingsTableDdl } from './003_holdings_by_token.js'
import type { Migration } from './migration.js'

/**
 * Each table is keyed by what identifies its record in the world, in a
 * ReplacingMergeTree, so writing a record again replaces it instead of doubling it.
 * Raw token amounts are UInt256: every digit of a uint256 survives.
 *
 * On a cluster the first swaps layout (moved by migration 2) is not created, and holdings
 * are created keyed by token at once (migration 3's layout).
 */
export const coreTables: Migration = {
  version: 1,
  name: 'core_tables',
  statements: (t) => [tokensDdl(t), legacySwapsDdl(t), holdingsByWalletDdl(t), pricesDdl(t), deadLettersDdl(t)],
  cluster: {
    statements: (t) => [tokensDdl(t), holdingsTableDdl(t.holdings), pricesDdl(t), deadLettersDdl(t)],
    run: true,
  },
}

function tokensDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.tokens} (
      contract_address String,
      id String,
      chain_id UInt32,
      name String,
      symbol String,
      decimals UInt8,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY contract_address`
}

function legacySwapsDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.legacySwaps} (
      chain_id UInt32,
      hash String,
      block_number UInt64,
      timestamp DateTime64(3, 'UTC'),
      wallet_address String,
      token_sold_address String,
      token_sold_amount UInt256,
      token_bought_address String,
      token_bought_amount UInt256,
      value_usd Nullable(Float64),
      dex Nullable(String),
      ingested_at DateTime64(3, 'UTC'),
      INDEX swaps_timestamp timestamp TYPE minmax GRANULARITY 1,
      INDEX swaps_wallet wallet_address TYPE bloom_filter GRANULARITY 4,
      INDEX swaps_hash hash TYPE bloom_filter GRANULARITY 4
    ) ENGINE = ReplacingMergeTree(ingested_at)
    ORDER BY (chain_id, hash)`
}

function holdingsByWalletDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.holdings} (
      wallet_address String,
      contract_address String,
      balance_raw UInt256,
      value_usd Nullable(Float64),
      as_of DateTime64(3, 'UTC'),
      INDEX holdings_token contract_address TYPE bloom_filter GRANULARITY 4
    ) ENGINE = ReplacingMergeTree(as_of)
    ORDER BY (wallet_address, contract_address)`
}

function pricesDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.prices} (
      contract_address String,
      timestamp DateTime64(3, 'UTC'),
      price_usd Float64,
      volume_usd Nullable(Float64),
      ingested_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(ingested_at)
    ORDER BY (contract_address, timestamp)`
}

function deadLettersDdl(t: Tables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.deadLetters} (
      id String,
      record_type LowCardinality(String),
      payload String,
      reason String,
      source String,
      failed_at DateTime64(3, 'UTC'),
      redriven_at Nullable(DateTime64(3, 'UTC')),
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(updated_at)
    ORDER BY id`
}
