import type { ClickHouseClient } from '../clickhouse.js'
import { dateTime64Param } from '../datetime-param.js'
import { queryRows } from '../query-rows.js'
import type { Tables } from '../tables.js'
import { latestMarksSql } from './marks.js'
import { addressText, storedAddress, storedAddressSet } from './position-keys.js'
import type { OpenPositions } from './wallet-stats.js'
import type { WalletStatsRun } from './wallet-stats-runs.js'

/**
 * Wallets' open positions valued when read, not by the runs: each pair of the run's
 * generation as last stored (the positions FINAL: the run's position, or a later run's
 * that already rewrote it), at its token's latest stored mark (marks.ts). A minute of
 * trading moves nearly every token's mark, so a run that valued every wallet's positions
 * read all of them each time (1.0 s of a 3.6 s incremental run on the 10M store); a reader
 * values the few wallets it shows.
 *
 * `wallets`: the wallets to value (null: every wallet with positions). A wallet without
 * stored positions is absent from the map. The quantity is tested after FINAL (not in
 * WHERE, which could keep a pair's older row with a quantity its latest row no longer has).
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
    SELECT ${addressText('p.wallet_address')} AS wallet,
      sumIf(toFloat64(quantity) * transform(token, marks.1, marks.2, 0.) - cost_usd, quantity > 0) AS unrealized,
      countIf(quantity > 0) AS open
    FROM ${t.walletPositions} AS p FINAL
    WHERE computed_at >= {positions_since: DateTime64(3, 'UTC')}
      ${wallets === null ? '' : `AND p.wallet_address IN ${storedAddressSet('wallets')}`}
    GROUP BY p.wallet_address`,
    { positions_since: dateTime64Param(run.positionsSinceMs ?? 0), ...(wallets === null ? {} : { wallets }) },
  )
  return new Map(rows.map((r) => [r.wallet, { unrealizedPnlUsd: r.unrealized, openPositions: Number(r.open) }]))
}
