import { alertsSchemaDdl } from '../schema/alerts-schema.js'
import { candlesSchemaDdl } from '../schema/candles-schema.js'
import { changesSchemaDdl } from '../schema/changes-schema.js'
import { deadLettersSchemaDdl } from '../schema/dead-letters-schema.js'
import { holdingsSchemaDdl } from '../schema/holdings-schema.js'
import { smartMoneySchemaDdl } from '../schema/smart-money-schema.js'
import { storeIdentitySchemaDdl } from '../schema/store-identity-schema.js'
import { swapsSchemaDdl } from '../schema/swaps-schema.js'
import { tokenFlowsSchemaDdl } from '../schema/token-flows-schema.js'
import { tokensSchemaDdl } from '../schema/tokens-schema.js'
import { ensureStoreId } from '../store-identity.js'
import type { Tables } from '../tables.js'
import type { Migration } from './migration.js'

/** The schema version the baseline creates; a store recording an older one cannot be adopted (migrate.ts). */
export const BASELINE_VERSION = 26

/** Every schema module's statements, tables before the views that read or write them. */
function schemaDdl(t: Tables, onCluster: boolean): string[] {
  return [
    ...tokensSchemaDdl(t),
    ...holdingsSchemaDdl(t),
    ...swapsSchemaDdl(t),
    ...candlesSchemaDdl(t),
    ...tokenFlowsSchemaDdl(t),
    // Its views read the swaps, the prices, the tokens and the holdings.
    ...changesSchemaDdl(t),
    ...deadLettersSchemaDdl(t),
    ...storeIdentitySchemaDdl(t),
    ...smartMoneySchemaDdl(t, { onCluster }),
    ...alertsSchemaDdl(t),
  ]
}

/**
 * The whole schema as the schema modules declare it now, as one migration at version 26: a
 * new store gets it and records 26, then every later migration, each of which changes
 * nothing on a store made this way. A store that the earlier, step-by-step migrations
 * brought to version 26 is adopted as it is, and the later migrations bring it to the
 * schema the modules declare. The data step gives a new store its id.
 */
export const baseline: Migration = {
  version: BASELINE_VERSION,
  name: 'baseline',
  statements: (t) => schemaDdl(t, false),
  cluster: { statements: (t) => schemaDdl(t, true), run: true },
  async run(clickhouse, t) {
    await ensureStoreId(clickhouse, t)
  },
}
