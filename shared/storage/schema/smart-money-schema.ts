import type { Tables } from '../tables.js'

const DT = "DateTime64(3, 'UTC')"

/**
 * wallet_stats' USD amounts, stored without compression: sums of random prices, which LZ4
 * left at 1.01–1.3 of their size, while every statistics run writes a row per (wallet, window).
 */
export const PLAIN_WALLET_STATS_AMOUNTS = ['volume_usd', 'matched_proceeds_usd', 'unmatched_proceeds_usd', 'closed_cost_usd', 'realized_pnl_usd'] as const

const PLAIN = 'CODEC(NONE)'

/** The sums of one window (STAT_WINDOWS order) a run adds up for a wallet. */
const WALLET_SUMS = `Array(Tuple(
        trades UInt64,
        trades_without_usd UInt64,
        volume_usd Float64,
        matched_proceeds_usd Float64,
        unmatched_proceeds_usd Float64,
        closed_cost_usd Float64,
        realized_pnl_usd Float64,
        positions_reduced UInt64,
        positions_won UInt64,
        tokens_traded UInt64,
        first_trade Nullable(${DT}),
        last_trade Nullable(${DT})))`

/**
 * The swaps an incremental statistics run folds (shared/smart-money/run-changes.ts): a run
 * empties and fills them, reads them, and nothing needs them after it or after a restart, so
 * on one server they are held in memory (not sorted, compressed and merged at every run). On
 * a cluster they are a MergeTree, made replicated by cluster-ddl.ts: a Memory table is one
 * server's.
 */
function walletRunSwapsDdl(t: Tables, onCluster: boolean): string {
  return `CREATE TABLE IF NOT EXISTS ${t.walletRunSwaps} (
      wallet_address String,
      timestamp ${DT},
      hash String,
      chain_id UInt32,
      token_sold_address String,
      token_sold_amount UInt256,
      token_bought_address String,
      token_bought_amount UInt256,
      value_usd Nullable(Float64),
      refold UInt8
    ) ENGINE = ${onCluster ? 'MergeTree\n    ORDER BY (wallet_address, timestamp)' : 'Memory'}`
}

/**
 * The smart-money side: each wallet's trading statistics per window, the runs that computed
 * them and what a run carries to the next (shared/smart-money/), and the tracked set the
 * interface's reads serve. `onCluster`: the statements the cluster variant is made from.
 */
export function smartMoneySchemaDdl(t: Tables, { onCluster }: { onCluster: boolean }): string[] {
  // On a cluster the codecs are set by an ALTER, which cluster-ddl.ts applies to the local
  // table alone: the Distributed one stores nothing to compress.
  const plain = new Set<string>(onCluster ? [] : PLAIN_WALLET_STATS_AMOUNTS)
  const amount = (name: string) => `${name} Float64${plain.has(name) ? ` ${PLAIN}` : ''}`
  const plainOnCluster = onCluster ? [`ALTER TABLE ${t.walletStats} ${PLAIN_WALLET_STATS_AMOUNTS.map((c) => `MODIFY COLUMN ${c} Float64 ${PLAIN}`).join(', ')}`] : []
  return [
    // One row per (window, wallet) and run: FINAL keeps the latest run's row; a wallet the
    // latest run did not see (all its swaps retracted) keeps an older row, which readers
    // skip by asking for the latest run's computed_at. Open positions are valued when read
    // (shared/smart-money/open-positions.ts), not stored here.
    `CREATE TABLE IF NOT EXISTS ${t.walletStats} (
      wallet_address String,
      window LowCardinality(String),
      trades UInt64,
      trades_without_usd UInt64,
      ${amount('volume_usd')},
      ${amount('matched_proceeds_usd')},
      ${amount('unmatched_proceeds_usd')},
      ${amount('closed_cost_usd')},
      ${amount('realized_pnl_usd')},
      positions_reduced UInt64,
      positions_won UInt64,
      tokens_traded UInt64,
      first_trade Nullable(${DT}),
      last_trade Nullable(${DT}),
      computed_at ${DT}
    ) ENGINE = ReplacingMergeTree(computed_at)
    ORDER BY (window, wallet_address)`,
    ...plainOnCluster,

    // One row per run. `kind`: 'full' or 'incremental'; `positions_since`: the computed_at of
    // the full run whose positions the run continued (NULL: no positions to continue from,
    // so the next run is a full one); `changes_position`: the change feed's position the run
    // read the swaps at (0: none, the next run is a full one).
    `CREATE TABLE IF NOT EXISTS ${t.walletStatsRuns} (
      computed_at ${DT},
      as_of ${DT},
      wallets UInt64,
      duration_ms UInt64,
      kind LowCardinality(String) DEFAULT 'full',
      positions_since Nullable(${DT}),
      changes_position UInt64 DEFAULT 0
    ) ENGINE = MergeTree
    ORDER BY computed_at`,

    // One row per (wallet, token) and run that folded it (shared/smart-money/positions-sql.ts),
    // the addresses as 20 raw bytes (shared/smart-money/position-keys.ts) and the pair's hash,
    // which the carried lookup tests the touched pairs by: the position after its last leg,
    // and on the row of each wallet's first pair the wallet's sums of the run (empty on the
    // others). FINAL keeps a pair's latest run; is_deleted retracts a pair whose every swap
    // was retracted. Rows older than the runs' generation (the latest full run) are ignored,
    // so a full run need not delete anything first.
    `CREATE TABLE IF NOT EXISTS ${t.walletPositions} (
      wallet_address FixedString(20),
      token FixedString(20),
      pair_hash UInt64 MATERIALIZED cityHash64(wallet_address, token),
      quantity UInt256,
      cost_usd Float64,
      last_timestamp ${DT},
      wallet_sums ${WALLET_SUMS},
      computed_at ${DT},
      is_deleted UInt8 DEFAULT 0,
      INDEX computed_at_minmax computed_at TYPE minmax GRANULARITY 1
    ) ENGINE = ReplacingMergeTree(computed_at, is_deleted)
    ORDER BY (wallet_address, token)`,

    walletRunSwapsDdl(t, onCluster),

    // Each token's mark (its latest priced leg's order key and price) as a statistics run
    // set it: a full run writes every token's, an incremental run the tokens whose mark
    // moved (shared/smart-money/marks.ts). A run's marks are each token's latest row of the
    // generation up to that run; mark_key '' says the token has no mark any more. Merges
    // keep a token's latest row.
    `CREATE TABLE IF NOT EXISTS ${t.walletStatsMarks} (
      token String,
      mark_key String,
      mark_price Float64,
      computed_at ${DT}
    ) ENGINE = ReplacingMergeTree(computed_at)
    ORDER BY token`,

    // The tracked set served with SERVED_WALLETS=tracked (shared/smart-money/tracked-generations.ts),
    // in generations: one generation's wallets are written in one insert, before its row in
    // tracked_wallet_sets, so a generation with a row there is complete.
    `CREATE TABLE IF NOT EXISTS ${t.trackedWallets} (
      generation UInt64,
      wallet_address String
    ) ENGINE = MergeTree
    ORDER BY (generation, wallet_address)`,

    `CREATE TABLE IF NOT EXISTS ${t.trackedWalletSets} (
      generation UInt64,
      wallets UInt64,
      run_computed_at Nullable(${DT}),
      published_at ${DT}
    ) ENGINE = MergeTree
    ORDER BY generation`,
  ]
}
