import type { ClickHouseClient } from '../storage/clickhouse.js'
import { changeRangeParams, CHANGES_READABLE_MS, feedPosition } from '../changes/change-feed.js'
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
import { storeWalletStats } from './store-wallet-stats.js'
import { latestWalletStatsRun, recordWalletStatsRun, type WalletStatsRun } from './wallet-stats-runs.js'

export interface UpdateOptions {
  /** More wallets to refold than this: a full run instead (default 2,000). */
  maxRefoldedWallets?: number
  /** Told each step's duration (the benchmark prints them), the full run's steps when one is made instead. */
  onStep?: (step: string, ms: number) => void
  /** Passed to the full run made instead, when one is (storeWalletStats). */
  onMergesNotHeld?: HoldRefused
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
 * The changed swaps are the `swap` changes after the previous run's feed position up to
 * this run's, taken before it reads any swap (shared/changes/change-feed.ts): a row stored
 * after that run took its position is taken now, whatever its stamp, and a row it took is
 * not taken again.
 *
 * A full run (storeWalletStats) instead when there is no previous run with positions and a
 * feed position, the feed may have lost changes since (started again, or expired), the
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
  const fullRun = () => storeWalletStats(clickhouse, tables, asOfMs, computedAt, { onMergesNotHeld: options.onMergesNotHeld, onStep: options.onStep })
  // Before any read of the swaps: every change up to it names a row visible by then.
  const changes = { from: previous?.changesPosition ?? 0, to: await feedPosition(clickhouse, tables) }
  if (
    previous === null ||
    previous.positionsSinceMs === null ||
    changes.from === 0 ||
    changes.from > changes.to ||
    computedAt - previous.computedAtMs >= CHANGES_READABLE_MS ||
    asOfMs < previous.asOfMs ||
    !(await positionsAreThePreviousRuns(clickhouse, tables, previous))
  ) {
    return fullRun()
  }
  const params: Record<string, unknown> = {
    ...changeRangeParams(changes),
    as_of: dateTime64Param(asOfMs),
    previous_as_of: dateTime64Param(previous.asOfMs),
    previous_computed_at: dateTime64Param(previous.computedAtMs),
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
    changesPosition: changes.to,
    kind: 'incremental',
    positionsSinceMs: previous.positionsSinceMs,
    started,
  })
}
