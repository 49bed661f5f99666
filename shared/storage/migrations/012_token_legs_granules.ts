import type { ClickHouseClient } from '../clickhouse.js'
import { swapCandleMarksViewDdl, SWAP_CANDLE_MARKS_VIEW } from '../schema/candles-schema.js'
import { TOKEN_LEG_COLUMNS_BEFORE_WALLET, TOKEN_LEGS_GRANULARITY, TOKEN_LEGS_VIEW, tokenLegsDdl, tokenLegsViewDdl } from '../schema/swaps-schema.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'
import { tableFacts } from './table-facts.js'

/** How far back the catch-up copy reaches before the newest row copied: a worker stamps its rows before its insert commits. */
const CATCH_UP_MARGIN = '10 MINUTE'

/**
 * The token path (swap_legs_by_token) rebuilt with granules of 1,024 rows instead of 8,192
 * (schema/swaps-schema.ts tokenLegsDdl); a store created since has them already.
 *
 * A granularity is fixed when a table is created, so the rows are copied into a new table,
 * which then takes the old one's name (EXCHANGE TABLES) while the two views on the token
 * path (its feed from swaps_by_time, and the candle marks it writes) are re-created around
 * the exchange. The copy runs before the exchange, so the candle marks view does not see
 * it; rows another process inserts while it runs reach the old table, and are copied again
 * once the views write to the new one (every row stamped within 10 minutes of the newest
 * copied: duplicates collapse, as every re-delivery does). Each step can be re-run after a
 * crash: a rebuilt table is started over, an exchanged one only gets its views, the
 * catch-up and the drop. A cluster is created at the current layout.
 */
export const tokenLegsGranules: Migration = {
  version: 12,
  name: 'token_legs_granules',
  statements: () => [],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    const previous = `${t.swapLegs}_previous`
    if ((await granularity(clickhouse, t, t.swapLegs)) !== TOKEN_LEGS_GRANULARITY) {
      await clickhouse.command({ query: `DROP TABLE IF EXISTS ${previous}` })
      await clickhouse.command({ query: tokenLegsDdl(previous) })
      // The columns of that layout (migration 15 adds each leg's wallet afterwards).
      await clickhouse.command({ query: `INSERT INTO ${previous} (${TOKEN_LEG_COLUMNS_BEFORE_WALLET}) SELECT ${TOKEN_LEG_COLUMNS_BEFORE_WALLET} FROM ${t.swapLegs}` })
      await clickhouse.command({ query: `DROP VIEW IF EXISTS ${t.database}.${TOKEN_LEGS_VIEW}` })
      await clickhouse.command({ query: `DROP VIEW IF EXISTS ${t.database}.${SWAP_CANDLE_MARKS_VIEW}` })
      // The new table takes the name; `previous` now holds the old rows.
      await clickhouse.command({ query: `EXCHANGE TABLES ${t.swapLegs} AND ${previous}` })
    }
    await clickhouse.command({ query: tokenLegsViewDdl(t) })
    await clickhouse.command({ query: swapCandleMarksViewDdl(t) })
    if ((await granularity(clickhouse, t, previous)) !== null) {
      await clickhouse.command({
        query: `INSERT INTO ${t.swapLegs} (${TOKEN_LEG_COLUMNS_BEFORE_WALLET}) SELECT ${TOKEN_LEG_COLUMNS_BEFORE_WALLET} FROM ${previous}
                WHERE ingested_at >= (SELECT max(ingested_at) FROM ${t.swapLegs}) - INTERVAL ${CATCH_UP_MARGIN}`,
      })
      await clickhouse.command({ query: `DROP TABLE ${previous}` })
    }
  },
}

/** A table's granularity; null when there is no such table. */
async function granularity(clickhouse: ClickHouseClient, t: Tables, table: string): Promise<number | null> {
  const facts = await tableFacts(clickhouse, t, table)
  if (facts === null) return null
  const setting = /\bindex_granularity = (\d+)/.exec(facts.engine_full)
  return setting ? Number(setting[1]) : 8192
}
