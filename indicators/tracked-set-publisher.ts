import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Logger } from '../shared/platform/logger.js'
import type { SmartMoneyRule } from '../shared/platform/smart-money-settings.js'
import type { Tables } from '../shared/storage/tables.js'
import { passersByRule } from '../shared/smart-money/rule-passers.js'
import { latestTrackedGeneration, publishTrackedGeneration, trackedGenerationWallets, trackedWalletAddresses } from '../shared/smart-money/tracked-generations.js'
import type { TrackedWallets, TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { latestWalletStatsRun } from '../shared/smart-money/wallet-stats-runs.js'

export interface TrackedSetPublisherDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
  trackedWallets: TrackedWalletsFile
  rules: readonly SmartMoneyRule[]
  /** How often to look at the latest statistics run and the file; 0: only when `publish` is called. */
  intervalMs: number
}

export interface TrackedSetPublisher {
  /** Looks once: publishes a new generation if the set changed. */
  publish(): Promise<void>
  stop(): Promise<void>
}

/**
 * Keeps the served tracked set (shared/smart-money/tracked-generations.ts) equal to the
 * tracked set of GET /wallets: the wallets of the tracked-wallets file and every rule's
 * passers in the latest statistics run. Each look costs a run lookup and a stat of the file;
 * the rules are evaluated again only when either changed, and a generation is written only
 * when the set did. Looks run one at a time; an error is logged and the next look tries again.
 */
export function startTrackedSetPublisher(deps: TrackedSetPublisherDeps): TrackedSetPublisher {
  let looked: { runAtMs: number | null; listed: TrackedWallets } | null = null
  let published: { generation: number; wallets: string[] } | null | undefined = undefined
  let running: Promise<void> = Promise.resolve()
  let stopped = false
  let timer: NodeJS.Timeout | undefined

  const look = async () => {
    const [run, listed] = [await latestWalletStatsRun(deps.clickhouse, deps.tables), await deps.trackedWallets.current()]
    const runAtMs = run?.computedAtMs ?? null
    if (looked !== null && looked.runAtMs === runAtMs && looked.listed === listed) return
    if (published === undefined) {
      const latest = await latestTrackedGeneration(deps.clickhouse, deps.tables)
      published = latest === null ? null : { generation: latest.generation, wallets: await trackedGenerationWallets(deps.clickhouse, deps.tables, latest.generation) }
    }
    const wallets = trackedWalletAddresses(listed, await passersByRule(deps.clickhouse, deps.tables, run, deps.rules))
    const unchanged = published !== null && published.wallets.length === wallets.length && published.wallets.every((w, i) => w === wallets[i])
    if (!unchanged) {
      const generation = await publishTrackedGeneration(deps.clickhouse, deps.tables, wallets, runAtMs, published?.generation ?? null)
      published = { generation: generation.generation, wallets }
      deps.logger.info('tracked set published', { generation: generation.generation, wallets: wallets.length })
    }
    looked = { runAtMs, listed }
  }
  const publish = () => {
    const next = running.then(look)
    running = next.catch((err: unknown) => deps.logger.warn('tracked set publication failed', { err }))
    return next
  }
  const schedule = () => {
    if (stopped || deps.intervalMs <= 0) return
    timer = setTimeout(() => void publish().catch(() => undefined).finally(schedule), deps.intervalMs)
  }
  void publish().catch(() => undefined).finally(schedule)
  return {
    publish,
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
