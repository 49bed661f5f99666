import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { listSet } from '../shared/storage/list-param.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { isRanked } from '../shared/smart-money/rules.js'
import { type SmartMoneyRule } from '../shared/platform/smart-money-settings.js'
import { MEASURE_SQL, passersByRule, rankedSql } from '../shared/smart-money/rule-passers.js'
import type { Tables } from '../shared/storage/tables.js'
import { walletWindowsFromRows } from '../shared/smart-money/compute-wallet-stats.js'
import { openPositionsOf } from '../shared/smart-money/open-positions.js'
import { RUN_ROW_SELECT_LIST, runRowsSql } from '../shared/smart-money/stats-query.js'
import type { WalletStatsRow } from '../shared/smart-money/stats-rows.js'
import { latestWalletStatsRun, type WalletStatsRun } from '../shared/smart-money/store-wallet-stats.js'
import type { OpenPositions, WalletWindows } from '../shared/smart-money/wallet-stats.js'
import { ExpiringMemory } from './expiring-memory.js'
import { PerKeyCoalescer } from './per-key-coalescer.js'

/** How long a look at the latest run is trusted: a new run is read within this. */
const LATEST_RUN_TTL_MS = 1_000

/**
 * The stored wallet statistics of the latest run (shared/smart-money/store-wallet-stats.ts):
 * a wallet's rank under a rule, the statistics of some wallets, and their open positions.
 * Every read names the run, so a wallet the latest run did not see is not read from an older one.
 */
export class SmartMoneyRepository {
  private readonly runs = new ExpiringMemory<WalletStatsRun | null>(LATEST_RUN_TTL_MS, 1)
  private readonly lookups = new PerKeyCoalescer<WalletStatsRun | null>()

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
  ) {}

  /** The latest run, looked up at most once a second (every smart-money request starts with it). */
  async latestRun(): Promise<WalletStatsRun | null> {
    const known = this.runs.get('latest')
    if (known !== undefined) return known
    return this.lookups.run('latest', async () => {
      const run = await latestWalletStatsRun(this.clickhouse, this.tables)
      this.runs.set('latest', run)
      return run
    })
  }

  /** Every rule's passers in a run, by rule id (a top rule's in rank order). */
  passersByRule(run: WalletStatsRun | null, rules: readonly SmartMoneyRule[]): Promise<Map<string, string[]>> {
    return passersByRule(this.clickhouse, this.tables, run, rules)
  }

  private runParams(run: WalletStatsRun, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { computed_at: dateTime64Param(run.computedAtMs), ...extra }
  }

  /** 1 + the wallets ranked before this one under a top rule; null when the rule does not rank its value (isRanked). */
  async rank(run: WalletStatsRun, rule: SmartMoneyRule & { kind: 'top' }, wallet: string, value: number | null): Promise<number | null> {
    if (!isRanked(rule, value)) return null
    const measure = MEASURE_SQL[rule.measure]
    const [row] = await queryRows<{ before: string }>(
      this.clickhouse,
      `SELECT count() AS before FROM ${runRowsSql(this.tables)} AND window = {window: String} AND ${rankedSql(rule)}
         AND (${measure} > {value: Float64} OR (${measure} = {value: Float64} AND wallet_address < {wallet: String}))`,
      this.runParams(run, { window: rule.window, value, wallet, min_value: rule.min_value }),
    )
    return Number(row?.before ?? 0) + 1
  }

  /** The statistics per window of these wallets (those the run saw), by address: the tracked set's can be tens of thousands (listSet). */
  async windowsOf(run: WalletStatsRun, wallets: readonly string[]): Promise<Map<string, WalletWindows>> {
    if (wallets.length === 0) return new Map()
    const rows = await queryRows<WalletStatsRow>(
      this.clickhouse,
      `SELECT ${RUN_ROW_SELECT_LIST} FROM ${runRowsSql(this.tables)} AND wallet_address IN ${listSet('wallets')}`,
      this.runParams(run, { wallets }),
    )
    return new Map(walletWindowsFromRows(rows).map((s) => [s.wallet, s]))
  }

  /** The open positions of these wallets valued now (a wallet without stored positions is absent). */
  openPositionsOf(run: WalletStatsRun, wallets: readonly string[]): Promise<Map<string, OpenPositions>> {
    return openPositionsOf(this.clickhouse, this.tables, run, wallets)
  }
}
