import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const DT = "DateTime64(3, 'UTC')"

function statements(t: Tables): string[] {
  return [
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
  ]
}

/** The tokens' marks kept between statistics runs, so an incremental run values open positions without reading every position's candidate. */
export const walletStatsMarks: Migration = { version: 16, name: 'wallet_stats_marks', statements }
