import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

const COLUMNS = 'wallet_address, contract_address, balance_raw, value_usd, as_of'

function statements(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.holdingsByWallet} (
      wallet_address String,
      contract_address String,
      balance_raw UInt256,
      value_usd Nullable(Float64),
      as_of DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(as_of)
    ORDER BY (wallet_address, contract_address)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_holdings_by_wallet TO ${t.holdingsByWallet} AS
      SELECT ${COLUMNS} FROM ${t.holdings}`,
  ]
}

/**
 * One wallet's holdings (GET /wallets/:address/holdings) read through a key, not by
 * scanning every holding: a companion of the holdings table ordered by (wallet, token),
 * kept by a view, with the same ReplacingMergeTree(as_of) so FINAL keeps the same latest
 * row. Existing holdings are copied after the view exists; a row that arrives during
 * the copy may be written twice, which the same key and as_of collapse.
 */
export const holdingsByWallet: Migration = {
  version: 7,
  name: 'holdings_by_wallet',
  statements,
  // A cluster store is created at the current layout: nothing to copy.
  cluster: { statements, run: false },
  async run(clickhouse, t) {
    await clickhouse.command({
      query: `INSERT INTO ${t.holdingsByWallet} (${COLUMNS}) SELECT ${COLUMNS} FROM ${t.holdings}`,
    })
  },
}
