import type { ClickHouseClient, ClickHouseSettings } from '../storage/clickhouse.js'

/**
 * Runs one INSERT of a statistics run. A run writes each key of the positions,
 * wallet_stats and wallet_stats_marks once (its own computed_at is part of what the
 * replacing engines keep), so the insert need not collapse its block by key first
 * (optimize_on_insert), which cost an incremental run's wallet rows 0.2 s of 0.5 s on the
 * benchmark's store. `settings`: more for this insert.
 */
export async function runWrite(clickhouse: ClickHouseClient, query: string, params: Record<string, unknown>, settings: ClickHouseSettings = {}): Promise<void> {
  await clickhouse.command({ query, query_params: params, clickhouse_settings: { optimize_on_insert: 0, ...settings } })
}
