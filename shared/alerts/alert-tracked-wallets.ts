import type { ClickHouseClient } from '../storage/clickhouse.js'
import { latestTrackedGeneration, trackedGenerationWallets } from '../smart-money/tracked-generations.js'
import type { TrackedWalletsFile } from '../smart-money/tracked-wallets-file.js'
import type { Tables } from '../storage/tables.js'

/**
 * The wallets an alert rule without its own list watches: the latest published generation
 * of the tracked set (shared/smart-money/tracked-generations.ts), or, before one is
 * published (SERVED_WALLETS=all publishes none), the tracked-wallets file's wallets.
 * A generation's wallets are loaded once.
 */
export function alertTrackedWallets(clickhouse: ClickHouseClient, tables: Tables, file: TrackedWalletsFile): () => Promise<ReadonlySet<string>> {
  let loaded: { generation: number; wallets: ReadonlySet<string> } | null = null
  return async () => {
    const latest = await latestTrackedGeneration(clickhouse, tables)
    if (latest === null) return new Set((await file.current()).wallets.keys())
    if (loaded?.generation !== latest.generation) {
      loaded = { generation: latest.generation, wallets: new Set(await trackedGenerationWallets(clickhouse, tables, latest.generation)) }
    }
    return loaded.wallets
  }
}
