import { baseline } from './026_baseline.js'
import { changeFeed } from './027_change_feed.js'
import { pushAndSignals } from './028_push_and_signals.js'
import type { Migration } from './migration.js'

/** The baseline, then every migration after it, in the order they apply. Add new ones at the end with the next version (27, …). */
export const migrations: readonly Migration[] = [baseline, changeFeed, pushAndSignals]
