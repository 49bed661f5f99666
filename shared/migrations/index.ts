import type { Migration } from './migration.js'
import { coreTables } from './001_core_tables.js'
import { timeOrderedSwaps } from './002_time_ordered_swaps.js'
import { holdingsByToken } from './003_holdings_by_token.js'
import { storedCandles } from './004_stored_candles.js'
import { storeIdentity } from './005_store_identity.js'
import { deadLetterLines } from './006_dead_letter_lines.js'
import { holdingsByWallet } from './007_holdings_by_wallet.js'
import { walletStats } from './008_wallet_stats.js'
import { swapVersionsFirst } from './009_swap_versions_first.js'
import { walletPositions } from './010_wallet_positions.js'
import { walletRows } from './011_wallet_rows.js'
import { tokenLegsGranules } from './012_token_legs_granules.js'
import { swapVariants } from './013_swap_variants.js'
import { trackedWallets } from './014_tracked_wallets.js'
import { tokenLegWallets } from './015_token_leg_wallets.js'

/** Every migration, in the order it applies. Add new ones at the end with the next version. */
export const migrations: readonly Migration[] = [coreTables, timeOrderedSwaps, holdingsByToken, storedCandles, storeIdentity, deadLetterLines, holdingsByWallet, walletStats, swapVersionsFirst, walletPositions, walletRows, tokenLegsGranules, swapVariants, trackedWallets, tokenLegWallets]
