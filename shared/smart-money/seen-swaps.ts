import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import type { WalletStatsRun } from './wallet-stats-runs.js'

/**
 * What a statistics run has seen of the swaps, so that the next one takes exactly the rest.
 *
 * A swap row is stamped (ingested_at) before it is stored: the ingest worker stamps a job's
 * rows, buffers them up to INGEST_FLUSH_MS and inserts them, and other workers, the backfill
 * and the chain follower insert beside it. So rows become visible out of stamp order, and
 * "everything stamped after the latest stamp seen" misses a row stamped earlier but stored
 * after the run read the swaps.
 *
 * A run therefore sets its watermark `settleMs` before its own clock (every row stamped
 * earlier is taken as stored by then), and records the rows it sees stamped after that
 * watermark, each as its id (SEEN_ROW_ID), before it reads anything else
 * (wallet_stats_seen_swap_ids, kept an hour). The next run's changed rows are
 * those stamped after the watermark that the run did not see: a row in flight is taken by
 * the next run, and a row the run saw is not taken again (it would refold its wallet, being
 * at or before its pair's last folded leg).
 */

const DT = "DateTime64(3, 'UTC')"

/**
 * A swap row's id among the seen rows: 128 bits of what tells the rows apart (the swap's
 * key and when the row was stamped). The rows a run checks and the rows its predecessor saw
 * meet as a set of 16-byte values rather than of tuples holding a 66-character hash, which
 * halves checking a run's rows against them in steady ingestion
 * (docs/decisions/0003-seen-rows-as-128-bit-ids.md). Two different rows share an id with a
 * chance of about 10⁻²⁸ a run; a row taken for a seen one would be folded only by the next
 * full run.
 */
export const SEEN_ROW_ID = 'sipHash128(timestamp, hash, chain_id, ingested_at)'

/** The run's watermark: `settleMs` before its clock, never before the previous run's. */
export function watermarkOf(previousMs: number | null, clockMs: number, settleMs: number): number {
  return Math.max(previousMs ?? Number.NEGATIVE_INFINITY, clockMs - settleMs)
}

/**
 * Records the swap rows (deliveries and tombstones) stamped after `watermarkMs` that the
 * run stamped `computedAtMs` sees now. Called before the run reads the swaps: a row seen
 * here is seen by every read after it.
 */
export async function recordSeenSwaps(clickhouse: ClickHouseClient, t: Tables, computedAtMs: number, watermarkMs: number): Promise<void> {
  await clickhouse.command({
    query: `INSERT INTO ${t.walletStatsSeenSwaps} (computed_at, row_id)
      SELECT {computed_at: ${DT}}, ${SEEN_ROW_ID} FROM ${t.swaps}
      WHERE ingested_at > {watermark: ${DT}}`,
    query_params: { computed_at: dateTime64Param(computedAtMs), watermark: dateTime64Param(watermarkMs) },
  })
}

/**
 * The condition on swap rows (of t.swaps) that the previous run did not take: stamped after
 * its watermark and not among the rows it saw. Parameters: ingested_after (its watermark),
 * previous_computed_at.
 */
export const unseenSinceSql = (t: Tables): string =>
  `ingested_at > {ingested_after: ${DT}} AND ${SEEN_ROW_ID} NOT IN (
      SELECT row_id FROM ${t.walletStatsSeenSwaps} WHERE computed_at = {previous_computed_at: ${DT}})`

/** Whether any swap row is stored that the run has not taken (the refresher's "new swaps?"). */
export async function anyUnseenSwaps(clickhouse: ClickHouseClient, t: Tables, run: Pick<WalletStatsRun, 'computedAtMs' | 'swapsWatermarkMs'>): Promise<boolean> {
  const [row] = await queryRows<{ unseen: string }>(clickhouse, `SELECT count() AS unseen FROM ${t.swaps} WHERE ${unseenSinceSql(t)}`, {
    ingested_after: dateTime64Param(run.swapsWatermarkMs ?? 0),
    previous_computed_at: dateTime64Param(run.computedAtMs),
  })
  return Number(row?.unseen ?? 0) > 0
}
