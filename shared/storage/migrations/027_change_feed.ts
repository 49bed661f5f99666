import { changesSchemaDdl } from '../schema/changes-schema.js'
import { SWAP_MOVES_VIEW, swapMovesViewDdl, TOKEN_LEGS_VIEW, tokenLegsViewDdl } from '../schema/swaps-schema.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/** What the change feed replaces in a store at the baseline made by the earlier code. */
function replaced(t: Tables): string[] {
  const q = (name: string) => `${t.database}.${name}`
  return [
    ...['mv_candle_marks_swaps', 'mv_candle_marks_prices', 'mv_candle_marks_tokens'].map((v) => `DROP VIEW IF EXISTS ${q(v)}`),
    ...['candle_marks', 'candle_refresh_state', 'wallet_stats_seen_swap_ids'].map((table) => `DROP TABLE IF EXISTS ${q(table)}`),
  ]
}

/** The statistics runs record their feed position in place of their watermark, which alone needed the swaps' ingested_at index. */
function walletStatsOnTheFeed(t: Tables): string[] {
  return [
    `ALTER TABLE ${t.walletStatsRuns} ADD COLUMN IF NOT EXISTS changes_position UInt64 DEFAULT 0`,
    `ALTER TABLE ${t.walletStatsRuns} DROP COLUMN IF EXISTS swaps_ingested_until`,
    `ALTER TABLE ${t.swaps} DROP INDEX IF EXISTS ingested_at_minmax`,
  ]
}

/**
 * The token legs from the wallet path instead of beside it (before the feed's views read
 * them), and the retraction lookup for the hashes delivered before only (swaps-schema.ts).
 */
function swapViewsRewritten(t: Tables): string[] {
  return [
    `DROP VIEW IF EXISTS ${t.database}.${TOKEN_LEGS_VIEW}`,
    tokenLegsViewDdl(t),
    `DROP VIEW IF EXISTS ${t.database}.${SWAP_MOVES_VIEW}`,
    swapMovesViewDdl(t),
  ]
}

/**
 * The change feed in place of the candle marks and the statistics' seen rows. A new store
 * has it from the baseline, so this changes nothing there. An upgraded store's candle
 * marks not yet read go with their table: every token with swaps or prices gets a
 * token-wide change instead, so its candles are all re-aggregated once.
 */
export const changeFeed: Migration = {
  version: 27,
  name: 'change feed',
  statements: (t) => [...swapViewsRewritten(t), ...changesSchemaDdl(t), ...replaced(t), ...walletStatsOnTheFeed(t)],
  async run(clickhouse, t) {
    await clickhouse.command({
      query: `INSERT INTO ${t.changes} (kind, tokens)
        SELECT 'token', [token] FROM (
          SELECT DISTINCT token_address AS token FROM ${t.swapLegs}
          UNION DISTINCT SELECT DISTINCT contract_address AS token FROM ${t.prices})`,
    })
  },
}
