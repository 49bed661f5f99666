import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { latestTrackedGeneration, trackedGenerationWallets } from '../shared/smart-money/tracked-generations.js'

/** The wallets whose rows a read serves: one generation of the tracked set. Null everywhere: every wallet. */
export interface ServedScope {
  generation: number
  wallets: ReadonlySet<string>
}

/** How long a look at the latest generation is trusted: a change is served within this (plus its publisher's interval). */
const RECHECK_MS = 1_000

/**
 * Which wallets the interface's reads serve (SERVED_WALLETS): all (null), or the latest
 * published generation of the tracked set (shared/smart-money/tracked-generations.ts),
 * looked up at most once a second and its wallets loaded once per generation. Before the
 * first generation is published, the tracked set is empty: nothing is served.
 */
export class ServedWallets {
  private scope: ServedScope = { generation: 0, wallets: new Set() }
  private checkedAt = -Infinity
  private checking: Promise<ServedScope> | null = null

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly tables: Tables,
    readonly mode: 'all' | 'tracked',
    private readonly clock: () => number = Date.now,
  ) {}

  async current(): Promise<ServedScope | null> {
    if (this.mode === 'all') return null
    if (this.clock() - this.checkedAt < RECHECK_MS) return this.scope
    this.checking ??= this.check().finally(() => {
      this.checking = null
    })
    return this.checking
  }

  private async check(): Promise<ServedScope> {
    const startedAt = this.clock()
    const latest = await latestTrackedGeneration(this.clickhouse, this.tables)
    if (latest !== null && latest.generation !== this.scope.generation) {
      const wallets = await trackedGenerationWallets(this.clickhouse, this.tables, latest.generation)
      this.scope = { generation: latest.generation, wallets: new Set(wallets) }
    }
    this.checkedAt = startedAt
    return this.scope
  }
}

/** SQL restricting rows with a `wallet_address` column to the scope's wallets ('1' for every wallet), and its parameters. */
export function servedCondition(tables: Tables, scope: ServedScope | null): { sql: string; params: Record<string, unknown> } {
  if (scope === null) return { sql: '1', params: {} }
  return {
    sql: `wallet_address IN (SELECT wallet_address FROM ${tables.trackedWallets} WHERE generation = {servedGeneration: UInt64})`,
    params: { servedGeneration: scope.generation },
  }
}

/** Whether a wallet's rows are served. */
export function isServed(scope: ServedScope | null, wallet: string): boolean {
  return scope === null || scope.wallets.has(wallet)
}

/** The message of a list asked for a wallet that is not served. */
export function notServedHint(wallet: string, what: 'swaps' | 'holdings'): string {
  return `${wallet} is not in the tracked set (SERVED_WALLETS=tracked): its ${what} are stored but not served; GET /wallets/${wallet} shows why`
}
