import type { ClickHouseClient } from '../storage/clickhouse.js'

/** Told which table's merges the server refused to hold, and its error. */
export type HoldRefused = (table: string, err: unknown) => void

/**
 * Runs a statistics run's writes with the background merges of `tables` held until it ends.
 * A full run writes its positions in slices (six on the benchmark's store). Merging them
 * while the later slices are still being folded takes cores the fold needs, and merges the
 * same rows again as more slices arrive. Held, they merge once, after the run: a full run
 * on the benchmark's 10M store took about a sixth less
 * (docs/decisions/0002-held-merges-during-a-full-run.md).
 *
 * A hint only: where the server refuses it (no SYSTEM privilege, or a Distributed table on
 * a cluster, whose replicas merge on their own), the run goes on with merges running, and
 * `onRefused` is told which table and why (the refresher logs it: the run is slower). A
 * crash leaves nothing held: the hold lives in the server's memory, and a restart (or the
 * next run's end) releases it.
 */
export async function withMergesHeld<T>(
  clickhouse: ClickHouseClient,
  tables: readonly string[],
  work: () => Promise<T>,
  onRefused?: HoldRefused,
): Promise<T> {
  const held: string[] = []
  for (const table of tables) {
    try {
      await clickhouse.command({ query: `SYSTEM STOP MERGES ${table}` })
      held.push(table)
    } catch (err) {
      onRefused?.(table, err)
    }
  }
  try {
    return await work()
  } finally {
    for (const table of held) await clickhouse.command({ query: `SYSTEM START MERGES ${table}` })
  }
}
