import type { Migration } from './migration.js'
import { ensureStoreId, storeIdentityTable } from '../store-identity.js'

/**
 * A random id for this store, written once when the store is created (or first migrated),
 * so state kept outside it (Redis) can tell which store it was computed from.
 */
export const storeIdentity: Migration = {
  version: 5,
  name: 'store_identity',
  statements: (t) => [
    `CREATE TABLE IF NOT EXISTS ${storeIdentityTable(t)} (
      id String,
      created_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree ORDER BY created_at`,
  ],
  async run(clickhouse, t) {
    await ensureStoreId(clickhouse, t)
  },
}
