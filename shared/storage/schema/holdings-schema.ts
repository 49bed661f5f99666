import type { Tables } from '../tables.js'

const COLUMNS = 'wallet_address, contract_address, balance_raw, value_usd, as_of'

/** The columns of both access paths: the same rows, ordered by token or by wallet first. */
const COLUMNS_DDL = `wallet_address String,
      contract_address String,
      balance_raw UInt256,
      value_usd Nullable(Float64),
      as_of DateTime64(3, 'UTC')`

/**
 * The holdings, twice: ordered by token, then wallet (one token's holders are one range of
 * the key: GET /holdings/token/:address), and ordered by wallet, then token (one wallet's
 * holdings: GET /wallets/:address/holdings), the second kept by a view of every insert into
 * the first. Both are ReplacingMergeTree(as_of), so FINAL keeps the same latest row of a
 * (wallet, token) in each. Raw balances are UInt256: every digit of a uint256 survives.
 */
export function holdingsSchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.holdings} (
      ${COLUMNS_DDL}
    ) ENGINE = ReplacingMergeTree(as_of)
    ORDER BY (contract_address, wallet_address)`,

    `CREATE TABLE IF NOT EXISTS ${t.holdingsByWallet} (
      ${COLUMNS_DDL}
    ) ENGINE = ReplacingMergeTree(as_of)
    ORDER BY (wallet_address, contract_address)`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t.database}.mv_holdings_by_wallet TO ${t.holdingsByWallet} AS
      SELECT ${COLUMNS} FROM ${t.holdings}`,
  ]
}
