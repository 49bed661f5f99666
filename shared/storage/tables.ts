/**
 * Every table name, qualified with the configured database. The database name is an
 * identifier validated by the configuration schema, never user input; chDB ignores the
 * client's `database` option, so qualified names are what works on both engines.
 */
export interface Tables {
  database: string
  migrations: string
  tokens: string
  /** The swaps, time-ordered (see schema/swaps-schema.ts for the tables around it). */
  swaps: string
  /** Where producers' swap rows are inserted: Null tables whose views fill the rest, first the versions, then the rows (schema/swaps-schema.ts swapEntryTables). */
  swapVersionsIncoming: string
  swapsIncoming: string
  swapLocations: string
  swapsByWallet: string
  swapLegs: string
  swapMoves: string
  /** Stored one-hour candles (schema/candles-schema.ts). */
  candles1h: string
  /** Per (token, hour, wallet), what the wallet bought and sold (schema/token-flows-schema.ts). */
  tokenWalletHourFlows: string
  /** The change feed, and where its consumers have read it to (schema/changes-schema.ts). */
  changes: string
  changePositions: string
  holdings: string
  /** The holdings again, ordered by wallet: one wallet's holdings are one range (schema/holdings-schema.ts). */
  holdingsByWallet: string
  prices: string
  deadLetters: string
  /** Every wallet's statistics per window, and the runs that computed them (schema/smart-money-schema.ts). */
  walletStats: string
  walletStatsRuns: string
  /** Each (wallet, token)'s carried position, and the swaps a statistics run folds. */
  walletPositions: string
  walletRunSwaps: string
  /** Each token's mark as the statistics runs set it. */
  walletStatsMarks: string
  /** The tracked set as served by the interface's reads, in generations. */
  trackedWallets: string
  trackedWalletSets: string
  /** The alert rules and their firings (schema/alerts-schema.ts). */
  alertRules: string
  alertFirings: string
}

export function tablesFor(database: string): Tables {
  const q = (name: string) => `${database}.${name}`
  return {
    database,
    migrations: q('schema_migrations'),
    tokens: q('tokens'),
    swaps: q('swaps_by_time'),
    swapVersionsIncoming: q('swap_versions_incoming'),
    swapsIncoming: q('swaps_incoming'),
    swapLocations: q('swap_locations'),
    swapsByWallet: q('swap_rows_by_wallet'),
    swapLegs: q('swap_legs_by_token'),
    swapMoves: q('swap_moves'),
    candles1h: q('candles_1h'),
    tokenWalletHourFlows: q('token_wallet_hour_flows'),
    changes: q('changes'),
    changePositions: q('change_positions'),
    holdings: q('holdings'),
    holdingsByWallet: q('holdings_by_wallet'),
    prices: q('prices'),
    deadLetters: q('dead_letters'),
    walletStats: q('wallet_stats'),
    walletStatsRuns: q('wallet_stats_runs'),
    walletPositions: q('wallet_token_positions'),
    walletRunSwaps: q('wallet_run_swaps'),
    walletStatsMarks: q('wallet_stats_marks'),
    trackedWallets: q('tracked_wallets'),
    trackedWalletSets: q('tracked_wallet_sets'),
    alertRules: q('alert_rules'),
    alertFirings: q('alert_firings'),
  }
}
