import type { ClickHouseClient } from '../shared/clickhouse.js'
import { dateTime64Param } from '../shared/datetime-param.js'
import { listSet } from '../shared/list-param.js'
import { queryRows } from '../shared/query-rows.js'
import type { RankedMeasure, SmartMoneyRule } from '../shared/smart-money-rules.js'
import type { Tables } from '../shared/tables.js'
import { walletStatsFromRows } from '../shared/wallet-stats/compute-wallet-stats.js'
import { WALLET_STATS_COLUMNS } from '../shared/wallet-stats/stats-query.js'
import type { WalletStatsRow } from '../shared/wallet-stats/stats-rows.js'
import { latestWalletStatsRun, type WalletStatsRun } from '../shared/wallet-stats/store-wallet-stats.js'
import type { WalletStats } from '../shared/wallet-stats/wallet-stats.js'

const MEASURE_SQL: Record<RankedMeasure, string> = {
  realized_pnl_usd: 'realized_pnl_usd',
  roi: 'if(closed_cost_usd > 0, realized_pnl_usd / closed_cost_usd, NULL)',
  volume_usd: 'volume_usd',
}

const SELECT_LIST = WALLET_STATS_COLUMNS.map((c) => (c === 'first_trade' || c === 'last_trade' ? `toString(${c}) AS ${c}` : c)).join(', ')

/**
 * The stored wallet statistics of the latest run (shared/wallet-stats/store-wallet-stats.ts):
 * the wallets passing a rule, a wallet's rank under a rule, and the statistics of some wallets.
 * Every read names the run, so a wallet the latest run did not see is not read from an older one.
 */
export class SmartMoneyRepository {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  latestRun(): Promise<WalletStatsRun | null> {
    return latestWalletStatsRun(this.clickhouse, this.tables)
  }

  private runParams(run: WalletStatsRun, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { computed_at: dateTime64Param(run.computedAtMs), ...extra }
  }

  /** The wallets passing a rule (the same conditions as judgeThreshold / judgeTop). */
  async passing(run: WalletStatsRun, rule: SmartMoneyRule): Promise<string[]> {
    const from = `FROM ${this.tables.walletStats} FINAL WHERE computed_at = {computed_at: DateTime64(3, 'UTC')} AND window = {window: String}`
    if (rule.kind === 'top') {
      const measure = MEASURE_SQL[rule.measure]
      const rows = await queryRows<{ wallet_address: string }>(
        this.clickhouse,
        `SELECT wallet_address ${from} AND ${measure} > 0 ORDER BY ${measure} DESC, wallet_address LIMIT {count: UInt32}`,
        this.runParams(run, { window: rule.window, count: rule.count }),
      )
      return rows.map((r) => r.wallet_address)
    }
    const conditions = [
      rule.min_trades !== undefined ? 'trades >= {min_trades: UInt64}' : null,
      rule.min_realized_pnl_usd !== undefined ? 'realized_pnl_usd >= {min_pnl: Float64}' : null,
      rule.min_win_rate !== undefined ? 'positions_reduced > 0 AND positions_won / positions_reduced >= {min_win_rate: Float64}' : null,
      rule.min_roi !== undefined ? 'closed_cost_usd > 0 AND realized_pnl_usd / closed_cost_usd >= {min_roi: Float64}' : null,
    ].filter((c) => c !== null)
    const rows = await queryRows<{ wallet_address: string }>(
      this.clickhouse,
      `SELECT wallet_address ${from}${conditions.map((c) => ` AND ${c}`).join('')}`,
      this.runParams(run, {
        window: rule.window,
        min_trades: rule.min_trades,
        min_pnl: rule.min_realized_pnl_usd,
        min_win_rate: rule.min_win_rate,
        min_roi: rule.min_roi,
      }),
    )
    return rows.map((r) => r.wallet_address)
  }

  /** 1 + the wallets ranked before this one under a top rule; null when its value is not positive. */
  async rank(run: WalletStatsRun, rule: SmartMoneyRule & { kind: 'top' }, wallet: string, value: number | null): Promise<number | null> {
    if (value === null || !(value > 0)) return null
    const measure = MEASURE_SQL[rule.measure]
    const [row] = await queryRows<{ before: string }>(
      this.clickhouse,
      `SELECT count() AS before FROM ${this.tables.walletStats} FINAL
       WHERE computed_at = {computed_at: DateTime64(3, 'UTC')} AND window = {window: String} AND ${measure} > 0
         AND (${measure} > {value: Float64} OR (${measure} = {value: Float64} AND wallet_address < {wallet: String}))`,
      this.runParams(run, { window: rule.window, value, wallet }),
    )
    return Number(row?.before ?? 0) + 1
  }

  /** The statistics of these wallets (those the run saw), by address: the tracked set's can be tens of thousands (listSet). */
  async statsOf(run: WalletStatsRun, wallets: readonly string[]): Promise<Map<string, WalletStats>> {
    if (wallets.length === 0) return new Map()
    const rows = await queryRows<WalletStatsRow>(
      this.clickhouse,
      `SELECT ${SELECT_LIST} FROM ${this.tables.walletStats} FINAL
       WHERE computed_at = {computed_at: DateTime64(3, 'UTC')} AND wallet_address IN ${listSet('wallets')}`,
      this.runParams(run, { wallets }),
    )
    return new Map(walletStatsFromRows(rows).map((s) => [s.wallet, s]))
  }
}
