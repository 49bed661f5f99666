import type { ClickHouseClient } from '../clickhouse.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'
import { tableFacts } from './table-facts.js'

/** The holdings' sorting key after this migration: one token's holdings are one range of it. */
export const HOLDINGS_SORTING_KEY = 'contract_address, wallet_address'

const COLUMNS = 'wallet_address, contract_address, balance_raw, value_usd, as_of'

/** Holdings as migration 1 made them, keyed by token first; still a ReplacingMergeTree(as_of). */
export function holdingsTableDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
      wallet_address String,
      contract_address String,
      balance_raw UInt256,
      value_usd Nullable(Float64),
      as_of DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(as_of)
    ORDER BY (${HOLDINGS_SORTING_KEY})`
}

/** Where the rows wait while they move: the new layout before the exchange, the old one after. */
export function holdingsStagingTable(t: Tables): string {
  return `${t.holdings}_v3_move`
}

/**
 * Holdings were ordered by (wallet, token), so GET /holdings/token/:address read every
 * holding. This rebuilds the table ordered by (token, wallet): the rows are copied into a
 * new table, the two are exchanged atomically, rows that reached the old table during the
 * copy are copied again (a row written twice is stored once: same key, same as_of), and
 * the old table is dropped.
 *
 * Safe to re-run after a crash at any point: before the exchange the holdings table still
 * has the old key, and the copy starts afresh; after it, the old rows wait in the staging
 * table, which is copied over again and dropped; once done, nothing is left to do.
 * On a cluster migration 1 creates the holdings keyed by token already: nothing to do.
 */
export const holdingsByToken: Migration = {
  version: 3,
  name: 'holdings_by_token',
  statements: () => [],
  cluster: { statements: () => [], run: false },
  async run(clickhouse, t) {
    const staging = holdingsStagingTable(t)
    const command = (query: string) => clickhouse.command({ query })
    if ((await sortingKey(clickhouse, t, t.holdings)) !== HOLDINGS_SORTING_KEY) {
      await command(`DROP TABLE IF EXISTS ${staging}`)
      await command(holdingsTableDdl(staging))
      await command(`INSERT INTO ${staging} (${COLUMNS}) SELECT ${COLUMNS} FROM ${t.holdings}`)
      await command(`EXCHANGE TABLES ${t.holdings} AND ${staging}`)
    }
    if ((await sortingKey(clickhouse, t, staging)) !== null) {
      await command(`INSERT INTO ${t.holdings} (${COLUMNS}) SELECT ${COLUMNS} FROM ${staging}`)
      await command(`DROP TABLE ${staging}`)
    }
  },
}

/** A table's sorting key, or null when there is no such table. */
async function sortingKey(clickhouse: ClickHouseClient, t: Tables, table: string): Promise<string | null> {
  return (await tableFacts(clickhouse, t, table))?.sorting_key ?? null
}
