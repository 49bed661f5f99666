import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

/**
 * The swaps an incremental statistics run folds (migration 10) held in memory: a run empties
 * and fills them, reads them, and nothing needs them after it or after a restart. Written
 * to a MergeTree they were sorted, compressed and merged each run (0.11 s for the
 * benchmark's 100,000 new swaps, against 0.04 s). On a cluster they stay a replicated table
 * (a Memory table is one server's).
 */
export const runSwapsInMemory: Migration = {
  version: 22,
  name: 'run_swaps_in_memory',
  statements: () => [],
  async run(clickhouse, t: Tables) {
    await clickhouse.command({
      query: `CREATE OR REPLACE TABLE ${t.walletRunSwaps} (
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
      ) ENGINE = Memory`,
    })
  },
  cluster: { statements: () => [], run: false },
}
