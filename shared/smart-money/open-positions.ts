import type { ClickHouseClient } from '../storage/clickhouse.js'
import { dateTime64Param } from '../platform/datetime-param.js'
import { queryRows } from '../storage/query-rows.js'
import type { Tables } from '../storage/tables.js'
import { latestMarksSql } from './marks.js'
import { addressText, storedAddress, storedAddressSet } from './position-keys.js'
import type { OpenPositions } from './wallet-stats.js'
import type { WalletStatsRun } from './wallet-stats-runs.js'

const DT = "DateTime64(3, 'UTC')"

/**
 * Wallets' open positions valued when read, not by the runs: each pair of the run's
 * generation as the run left it (its latest row up to the run's computed_at: the position
 * the run's figures were computed with, even while a later run writes its own), at its
 * token's latest stored mark (marks.ts). A minute of trading moves nearly every token's
 * mark, so a run that valued every wallet's positions read all of them each time (1.0 s of
 * a 3.6 s incremental run on the 10M store); a reader values the few wallets it shows.
 *
 * `wallets`: the wallets to value (null: every wallet with positions). A wallet without
 * stored positions is absent from the map. A pair's latest row is taken by argMax (a run
 * writes each pair once, so its rows never share a computed_at), and a retraction or a
 * zero quantity there means no open position.
 */
export async function openPositionsOf(
  clickhouse: ClickHouseClient,
  t: Tables,
  run: WalletStatsRun,
  wallets: readonly string[] | null,
): Promise<Map<string, OpenPositions>> {
  if (wallets?.length === 0) return new Map()
  const rows = await queryRows<{ wallet: string; unrealized: number; open: string }>(
    clickhouse,
    `WITH (SELECT (groupArray(${storedAddress('token')}), groupArray(mark)) FROM (${latestMarksSql(t)})) AS marks
    SELECT ${addressText('wallet_address')} AS wallet,
      sumIf(toFloat64(quantity) * transform(token, marks.1, marks.2, 0.) - cost_usd, quantity > 0) AS unrealized,
      countIf(quantity > 0) AS open
    FROM (
      SELECT wallet_address, token, argMax(quantity, computed_at) AS quantity, argMax(cost_usd, computed_at) AS cost_usd,
        argMax(is_deleted, computed_at) AS deleted
      FROM ${t.walletPositions}
      WHERE computed_at >= {positions_since: ${DT}} AND computed_at <= {computed_at: ${DT}}
        ${wallets === null ? '' : `AND wallet_address IN ${storedAddressSet('wallets')}`}
      GROUP BY wallet_address, token
    )
    WHERE deleted = 0
    GROUP BY wallet_address`,
    {
      positions_since: dateTime64Param(run.positionsSinceMs ?? 0),
      computed_at: dateTime64Param(run.computedAtMs),
      ...(wallets === null ? {} : { wallets }),
    },
  )
  return new Map(rows.map((r) => [r.wallet, { unrealizedPnlUsd: r.unrealized, openPositions: Number(r.open) }]))
}
