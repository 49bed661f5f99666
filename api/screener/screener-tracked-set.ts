import { createHash } from 'node:crypto'
import type { SmartMoneyRule } from '../../shared/platform/smart-money-settings.js'
import type { TrackedWalletsFile } from '../../shared/smart-money/tracked-wallets-file.js'
import { KeptTrackedSet } from '../kept-tracked-set.js'
import type { SmartMoneyRepository } from '../smart-money-repository.js'
import { trackedWalletsOf, TrackedWalletsView } from '../tracked-wallets-view.js'

/** The tracked wallets a screening covers, and how each is shown. */
export interface ScreenerScope {
  /** The same for the same wallets (what a kept result is kept under). */
  key: string
  /** Sorted. */
  wallets: readonly string[]
  shown(wallet: string): { name: string | null; labels: string[] }
}

/**
 * The tracked set as GET /wallets lists it (the tracked-wallets file's wallets and the
 * latest run's rule passers), with each wallet's name and labels: built once per run and
 * reading of the file, a new run's in the background (kept-tracked-set.ts). Statistics are
 * not read. A run that leaves the set as it was gives the same key.
 */
export function screenerTrackedSet(repository: SmartMoneyRepository, file: TrackedWalletsFile, rules: readonly SmartMoneyRule[]): () => Promise<ScreenerScope> {
  const sets = new KeptTrackedSet(async (run, listed) => {
    const passers = new Map<string, string[]>()
    for (const [rule, passing] of await repository.passersByRule(run, rules)) {
      for (const wallet of passing) passers.set(wallet, [...(passers.get(wallet) ?? []), rule])
    }
    return new TrackedWalletsView(trackedWalletsOf(listed, passers, null), new Map())
  })
  const scopes = new WeakMap<TrackedWalletsView, ScreenerScope>()
  return async () => {
    const { view, listed } = await sets.current(await repository.latestRun(), await file.current())
    let scope = scopes.get(view)
    if (scope === undefined) {
      const byWallet = new Map(view.wallets.map((w) => [w.wallet, w.labels]))
      const wallets = [...byWallet.keys()].sort()
      scope = {
        key: createHash('sha1').update(wallets.join(',')).digest('hex'),
        wallets,
        shown: (wallet) => ({ name: listed.wallets.get(wallet) ?? null, labels: byWallet.get(wallet) ?? [] }),
      }
      scopes.set(view, scope)
    }
    return scope
  }
}
