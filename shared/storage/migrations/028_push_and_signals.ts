import { alertsSchemaDdl } from '../schema/alerts-schema.js'
import { tokenFlowsSchemaDdl } from '../schema/token-flows-schema.js'
import type { Migration } from './migration.js'

/**
 * The alert rules and firings, and the tracked wallets' token flows by the hour (kept from
 * the change feed by their own consumer, which rebuilds them whole on its first run). A new
 * store has them from the baseline, so this changes nothing there.
 */
export const pushAndSignals: Migration = {
  version: 28,
  name: 'alerts and token flows',
  statements: (t) => [...alertsSchemaDdl(t), ...tokenFlowsSchemaDdl(t)],
}
