import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import type { TrackedWallets } from './tracked-wallets-file.js'

/**
 * The tracked set as the interface's reads serve it (SERVED_WALLETS=tracked), stored in
 * generations: the indicators role publishes a new generation whenever the set changes
 * (indicators/tracked-set-publisher.ts), and readers serve the wallets of the latest one.
 * A generation's wallets are one insert, written before its row in tracked_wallet_sets,
 * so a generation readers can see is complete.
 */
export interface TrackedGeneration {
  /** Increasing; about the ms it was published at. */
  generation: number
  wallets: number
  /** The statistics run whose rule passers it holds (null: before the first run, the listed wallets only). */
  runComputedAtMs: number | null
}

/** Generations older than this (and than the latest) are deleted: a read still using one has long finished. */
const KEPT_GENERATIONS_MS = 10 * 60_000

/** The tracked set of a run's rule passers and a reading of the tracked-wallets file, sorted. */
export function trackedWalletAddresses(listed: TrackedWallets, passers: ReadonlyMap<string, readonly string[]>): string[] {
  return [...new Set([...listed.wallets.keys(), ...[...passers.values()].flat()])].sort()
}

export async function latestTrackedGeneration(clickhouse: ClickHouseClient, tables: Tables): Promise<TrackedGeneration | null> {
  const [row] = await queryRows<{ generation: string; wallets: string; run_computed_at: string | null }>(
    clickhouse,
    `SELECT toString(generation) AS generation, toString(wallets) AS wallets,
       if(run_computed_at IS NULL, NULL, toString(toUnixTimestamp64Milli(run_computed_at))) AS run_computed_at
     FROM ${tables.trackedWalletSets} ORDER BY generation DESC LIMIT 1`,
  )
  if (row === undefined) return null
  return { generation: Number(row.generation), wallets: Number(row.wallets), runComputedAtMs: row.run_computed_at === null ? null : Number(row.run_computed_at) }
}

export async function trackedGenerationWallets(clickhouse: ClickHouseClient, tables: Tables, generation: number): Promise<string[]> {
  const rows = await queryRows<{ wallet_address: string }>(
    clickhouse,
    `SELECT wallet_address FROM ${tables.trackedWallets} WHERE generation = {generation: UInt64} ORDER BY wallet_address`,
    { generation },
  )
  return rows.map((r) => r.wallet_address)
}

/** Stores `wallets` as a new generation after `previous`, then deletes generations no read still uses. */
export async function publishTrackedGeneration(
  clickhouse: ClickHouseClient,
  tables: Tables,
  wallets: readonly string[],
  runComputedAtMs: number | null,
  previous: number | null,
  now = Date.now(),
): Promise<TrackedGeneration> {
  const generation = Math.max(now, (previous ?? 0) + 1)
  if (wallets.length > 0) {
    await clickhouse.insert({
      table: tables.trackedWallets,
      values: wallets.map((wallet_address) => ({ generation, wallet_address })),
      format: 'JSONEachRow',
    })
  }
  await clickhouse.insert({
    table: tables.trackedWalletSets,
    values: [
      {
        generation,
        wallets: wallets.length,
        run_computed_at: runComputedAtMs === null ? null : dateTime64Param(runComputedAtMs),
        published_at: dateTime64Param(now),
      },
    ],
    format: 'JSONEachRow',
  })
  const before = Math.min(generation, now - KEPT_GENERATIONS_MS)
  const [oldest] = await queryRows<{ oldest: string }>(clickhouse, `SELECT toString(min(generation)) AS oldest FROM ${tables.trackedWallets}`)
  if (oldest === undefined || Number(oldest.oldest) >= before) return { generation, wallets: wallets.length, runComputedAtMs }
  for (const table of [tables.trackedWallets, tables.trackedWalletSets]) {
    await clickhouse.command({ query: `DELETE FROM ${table} WHERE generation < {before: UInt64}`, query_params: { before } })
  }
  return { generation, wallets: wallets.length, runComputedAtMs }
}
