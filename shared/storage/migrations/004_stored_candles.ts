import { ALL_HOURS, candlesSchemaDdl } from '../schema/candles-schema.js'
import type { Migration } from './migration.js'

/**
 * Stored one-hour candles (schema/candles-schema.ts). An existing store gets a
 * token-wide mark for every token with swaps or prices, so the first refresh
 * (shared/candles/candle-refresh.ts) aggregates their whole history once.
 */
export const storedCandles: Migration = {
  version: 4,
  name: 'stored_candles',
  statements: (t) => candlesSchemaDdl(t),
  async run(clickhouse, t) {
    await clickhouse.command({
      query: `INSERT INTO ${t.candleMarks} (token, hour)
        SELECT token, toUInt32(${ALL_HOURS}) FROM (
          SELECT DISTINCT token_address AS token FROM ${t.swapLegs}
          UNION DISTINCT SELECT DISTINCT contract_address AS token FROM ${t.prices})`,
    })
  },
}
