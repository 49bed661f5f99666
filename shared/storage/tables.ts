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
  /** The keys-only wallet path before migration 11. */
  legacySwapsByWallet: string
  swapLegs: string
  swapMoves: string
  /** Stored one-hour candles and the marks of the buckets to re-aggregate (schema/candles-schema.ts). */
  candles1h: string
  candleMarks: string
  candleRefreshState: string
  /** The first layout, ordered by (chain_id, hash); emptied and dropped by migration 2. */
  legacySwaps: string
  holdings: string
  /** The holdings again, ordered by wallet: one wallet's holdings are one range (migration 7). */
  holdingsByWallet: string
  prices: string
  deadLetters: string
  /** Every wallet's statistics per window, and the runs that computed them (migration 8). */
  walletStats: string
  walletStatsRuns: string
  /** Each (wallet, token)'s carried position (migration 21), and the swaps a statistics run folds (migration 10). */
  walletPositions: string
  /** The carried positions keyed by address text (migrations 10 to 20; dropped by 21). */
  legacyWalletPositions: string
  walletRunSwaps: string
  /** Each token's mark as the statistics runs set it (migration 16). */
  walletStatsMarks: string
  /** The ids of the swap rows each run saw stamped after its watermark, kept an hour (migration 26). */
  walletStatsSeenSwaps: string
  /** The same rows whole, kept an hour (migration 25; dropped by 26). */
  hourlyWalletStatsSeenSwaps: string
  /** The same rows whole, kept a day (migration 24; dropped by 25). */
  legacyWalletStatsSeenSwaps: string
  /** The tracked set as served by the interface's reads, in generations (migration 14). */
  trackedWallets: string
  trackedWalletSets: string
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
    legacySwapsByWallet: q('swaps_by_wallet'),
    swapLegs: q('swap_legs_by_token'),
    swapMoves: q('swap_moves'),
    legacySwaps: q('swaps'),
    candles1h: q('candles_1h'),
    candleMarks: q('candle_marks'),
    candleRefreshState: q('candle_refresh_state'),
    holdings: q('holdings'),
    holdingsByWallet: q('holdings_by_wallet'),
    prices: q('prices'),
    deadLetters: q('dead_letters'),
    walletStats: q('wallet_stats'),
    walletStatsRuns: q('wallet_stats_runs'),
    walletPositions: q('wallet_token_positions'),
    legacyWalletPositions: q('wallet_positions'),
    walletRunSwaps: q('wallet_run_swaps'),
    walletStatsMarks: q('wallet_stats_marks'),
    walletStatsSeenSwaps: q('wallet_stats_seen_swap_ids'),
    hourlyWalletStatsSeenSwaps: q('wallet_stats_seen_swaps_by_hour'),
    legacyWalletStatsSeenSwaps: q('wallet_stats_seen_swaps'),
    trackedWallets: q('tracked_wallets'),
    trackedWalletSets: q('tracked_wallet_sets'),
  }
}
