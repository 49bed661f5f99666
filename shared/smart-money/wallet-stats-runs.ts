import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'

export interface WalletStatsRun {
  computedAtMs: number
  asOfMs: number
  /** The change feed's position the run took before it read the swaps (shared/changes/change-feed.ts); 0: none (a run of an earlier release): the next run is full. */
  changesPosition: number
  wallets: number
  durationMs: number
  /** full: every pair folded; incremental: the pairs the swaps since the previous run touched (incremental-run.ts). */
  kind: 'full' | 'incremental'
  /** The full run whose positions this run continued (its own time for a full run); null if the run recorded none (a run of an earlier release that carried no positions): the next run is full. */
  positionsSinceMs: number | null
}

const parseTime = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`)
const DT = "DateTime64(3, 'UTC')"

/** Counts the run's wallets and records it: from now on readers use its rows. */
export async function recordWalletStatsRun(
  clickhouse: ClickHouseClient,
  tables: Tables,
  run: Omit<WalletStatsRun, 'wallets' | 'durationMs'> & { started: number },
): Promise<WalletStatsRun> {
  const [count] = await queryRows<{ wallets: string }>(
    clickhouse,
    `SELECT count() AS wallets FROM ${tables.walletStats} WHERE computed_at = {computed_at: ${DT}} AND window = 'all'`,
    { computed_at: dateTime64Param(run.computedAtMs) },
  )
  const { started, ...rest } = run
  const recorded: WalletStatsRun = { ...rest, wallets: Number(count?.wallets ?? 0), durationMs: Date.now() - started }
  await clickhouse.insert({
    table: tables.walletStatsRuns,
    values: [
      {
        computed_at: dateTime64Param(recorded.computedAtMs),
        as_of: dateTime64Param(recorded.asOfMs),
        changes_position: recorded.changesPosition,
        wallets: recorded.wallets,
        duration_ms: recorded.durationMs,
        kind: recorded.kind,
        positions_since: recorded.positionsSinceMs === null ? null : dateTime64Param(recorded.positionsSinceMs),
      },
    ],
    format: 'JSONEachRow',
  })
  return recorded
}

/** The latest completed run, or null before the first. */
export async function latestWalletStatsRun(clickhouse: ClickHouseClient, tables: Tables): Promise<WalletStatsRun | null> {
  const [row] = await queryRows<{
    computed_at: string
    as_of: string
    changes_position: string
    wallets: string
    duration_ms: string
    kind: string
    positions_since: string | null
  }>(
    clickhouse,
    `SELECT toString(computed_at) AS computed_at, toString(as_of) AS as_of, toString(changes_position) AS changes_position,
       wallets, duration_ms, kind, toString(positions_since) AS positions_since
     FROM ${tables.walletStatsRuns} ORDER BY computed_at DESC LIMIT 1`,
  )
  if (!row) return null
  return {
    computedAtMs: parseTime(row.computed_at),
    asOfMs: parseTime(row.as_of),
    changesPosition: Number(row.changes_position),
    wallets: Number(row.wallets),
    durationMs: Number(row.duration_ms),
    kind: row.kind === 'incremental' ? 'incremental' : 'full',
    positionsSinceMs: row.positions_since ? parseTime(row.positions_since) : null,
  }
}
