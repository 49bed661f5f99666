import { storeIdentityTable } from '../store-identity.js'
import type { Tables } from '../tables.js'

/**
 * The store's id (shared/storage/store-identity.ts): a random UUID written once when the
 * store is created, so state kept outside it (Redis) can tell which store it was computed from.
 */
export function storeIdentitySchemaDdl(t: Tables): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${storeIdentityTable(t)} (
      id String,
      created_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = MergeTree ORDER BY created_at`,
  ]
}
