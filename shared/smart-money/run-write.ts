import type { ClickHouseClient, ClickHouseSettings } from '../storage/clickhouse.js'

/**
 * Runs one INSERT of a statistics run. A run writes each key of the positions,
 * wallet_stats and wallet_stats_marks once (its own computed_at is part of what the
 * replacing engines keep), so the insert need not collapse its block by key first
 * (optimize_on_insert): on the benchmark's store that saved 0.2 s of an incremental run's
 * 0.5 s of wallet rows and 0.1 s of its positions. `settings`: more for this insert.
 */
export async function runWrite(clickhouse: ClickHouseClient, query: string, params: Record<string, unknown>, settings: ClickHouseSettings = {}): Promise<void> {
  await clickhouse.command({ query, query_params: params, clickhouse_settings: { optimize_on_insert: 0, ...settings } })
}
