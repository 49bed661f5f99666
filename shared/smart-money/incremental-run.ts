import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { positionsInsertSql } from './positions-sql.js'
import { generationHasMarks, storeMarks } from './marks.js'
import { anyLateKeys, continuedWallets, fillRunSwaps, retractVanishedPairs, walletsToRefold } from './run-changes.js'
import { stepTimer } from './run-steps.js'
import { runWrite } from './run-write.js'
import { walletStatsInsertSql } from './stats-query.js'
import type { HoldRefused } from './held-merges.js'
import { recordSeenSwaps, watermarkOf } from './seen-swaps.js'
import { DEFAULT_SETTLE_MS } from '../platform/settle-time.js'
import { storeWalletStats } from './store-wallet-stats.js'
import { latestWalletStatsRun, recordWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

export interface UpdateOptions {
  /** More wallets to refold than this: a full run instead (default 2,000). */
  maxRefoldedWallets?: number
  /** Told each step's duration (the benchmark prints them), the full run's steps when one is made instead. */
  onStep?: (step: string, ms: number) => void
  /** Passed to the full run made instead, when one is (storeWalletStats). */
  onMergesNotHeld?: HoldRefused
  /** How long before its clock a run takes every stamped swap row as stored (seen-swaps.ts; default DEFAULT_SETTLE_MS). */
  settleMs?: number
}

const DT = "DateTime64(3, 'UTC')"

/** Whether the positions hold exactly what the previous run folded (no later run's rows left by a crash). */
async function positionsAreThePreviousRuns(clickhouse: ClickHouseClient, t: Tables, previous: WalletStatsRun): Promise<boolean> {
  const [row] = await queryRows<{ later: string }>(
    clickhouse,
    `SELECT count() AS later FROM ${t.walletPositions} WHERE computed_at > {previous_computed_at: ${DT}}`,
    { previous_computed_at: dateTime64Param(previous.computedAtMs) },
  )
  return Number(row?.later ?? 1) === 0
}

/**
 * Brings the stored statistics to `asOfMs` from the previous run, folding only what changed:
 *
 * - a pair touched only by swaps after the last leg its carried position folded is
 *   continued from that position with those swaps' legs (and its wallet's previous rows
 *   gain their sums);
 * - a wallet with a pair touched at or before that leg (a late, re-delivered, retracted or
 *   moved swap), or with a swap leaving a window as the clock moved, is refolded from its
 *   first swap, so its figures are exactly those of a full computation;
 * - the tokens' marks are moved on from the run's swaps (marks.ts), and found again for the
 *   tokens of a late swap, which may have taken one's latest priced leg away.
 *
 * The changed swaps are those the previous run did not take (seen-swaps.ts): stamped after
 * its watermark and not seen by it, so a row stored after that run though stamped before it
 * is taken now, and a row it took is not taken again.
 *
 * A full run (storeWalletStats) instead when there is no previous run with positions, the
 * clock went back, a crashed run left positions behind, or more than maxRefoldedWallets
 * wallets would be refolded.
 */
export async function updateWalletStats(
  clickhouse: ClickHouseClient,
  tables: Tables,
  asOfMs: number,
  computedAtMs = Date.now(),
  options: UpdateOptions = {},
): Promise<WalletStatsRun> {
  const started = Date.now()
  const step = stepTimer(options.onStep, started)
  const previous = await latestWalletStatsRun(clickhouse, tables)
  const computedAt = Math.max(computedAtMs, (previous?.computedAtMs ?? 0) + 1)
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS
  const fullRun = () => storeWalletStats(clickhouse, tables, asOfMs, computedAt, { onMergesNotHeld: options.onMergesNotHeld, onStep: options.onStep, settleMs })
  if (
    previous === null ||
    previous.positionsSinceMs === null ||
    asOfMs < previous.asOfMs ||
    !(await positionsAreThePreviousRuns(clickhouse, tables, previous))
  ) {
    return fullRun()
  }
  const watermark = watermarkOf(previous.swapsWatermarkMs, computedAt, settleMs)
  // Before any read of the swaps: what is seen here, every read after it sees.
  await recordSeenSwaps(clickhouse, tables, computedAt, watermark)
  const params: Record<string, unknown> = {
    as_of: dateTime64Param(asOfMs),
    previous_as_of: dateTime64Param(previous.asOfMs),
    previous_computed_at: dateTime64Param(previous.computedAtMs),
    ingested_after: dateTime64Param(previous.swapsWatermarkMs ?? 0),
    positions_since: dateTime64Param(previous.positionsSinceMs),
    computed_at: dateTime64Param(computedAt),
  }
  step('previous run')
  // Only a late key (run-changes.ts) can touch a pair before its last leg or take a swap away: a retraction, a move, a re-delivery elsewhere.
  const late = await anyLateKeys(clickhouse, tables, params)
  const refolded = await walletsToRefold(clickhouse, tables, params, late)
  step(`wallets to refold (${refolded.length})`)
  if (refolded.length > (options.maxRefoldedWallets ?? 2_000)) return fullRun()
  params.refolded = refolded

  await fillRunSwaps(clickhouse, tables, params, late)
  step('swaps to fold')
  // Narrowing the carried lookup to the continued wallets pays when they are a few of all.
  const narrowByWallet = (await continuedWallets(clickhouse, tables)) * 4 <= previous.wallets
  await runWrite(clickhouse, positionsInsertSql(tables, tables.walletRunSwaps, 'carried', { narrowByWallet }), params)
  step('positions')
  // Without one, a refolded wallet (a swap left a window) still has every pair it had.
  if (refolded.length > 0 && late) {
    await retractVanishedPairs(clickhouse, tables, params)
    step('vanished pairs')
  }
  const marks = !(await generationHasMarks(clickhouse, tables, params)) ? 'full' : late ? 'exact' : 'moved'
  await storeMarks(clickhouse, tables, params, marks)
  step(`marks (${marks})`)
  await runWrite(clickhouse, walletStatsInsertSql(tables, true), params)
  step('wallet rows')
  return recordWalletStatsRun(clickhouse, tables, {
    computedAtMs: computedAt,
    asOfMs,
    swapsWatermarkMs: watermark,
    kind: 'incremental',
    positionsSinceMs: previous.positionsSinceMs,
    started,
  })
}
