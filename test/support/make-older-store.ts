/**
 * Run as its own process (an embedded data directory opens in one process only):
 * `node --import tsx test/support/make-older-store.ts <version>` with CLICKHOUSE_PATH and
 * CLICKHOUSE_DATABASE set. Makes the store an earlier release left at that schema version:
 * the migrations table recording versions 1 to <version>, and nothing else.
 */
import { loadConfig } from '../../shared/platform/config.js'
import { createClickHouse } from '../../shared/storage/clickhouse.js'
import { bootstrapDdl } from '../../shared/storage/migrations/migration-ddl.js'
import { tablesFor } from '../../shared/storage/tables.js'

const version = Number(process.argv[2])
if (!Number.isInteger(version) || version < 1) throw new Error(`a schema version (1 or more) expected, not ${process.argv[2]}`)
const config = loadConfig()
const clickhouse = createClickHouse(config.clickhouse)
const tables = tablesFor(config.clickhouse.database)
for (const query of bootstrapDdl(tables, { cluster: null })) await clickhouse.command({ query })
await clickhouse.insert({
  table: tables.migrations,
  values: Array.from({ length: version }, (_, i) => ({ version: i + 1, name: `earlier_${i + 1}`, applied_at: Date.UTC(2026, 9, 1) + i * 1_000 })),
  format: 'JSONEachRow',
})
await clickhouse.close()
