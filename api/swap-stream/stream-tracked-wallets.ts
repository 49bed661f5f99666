import type { SmartMoneyRule } from '../../shared/platform/smart-money-settings.js'
import type { TrackedWalletsFile } from '../../shared/smart-money/tracked-wallets-file.js'
import { KeptTrackedSet } from '../kept-tracked-set.js'
import type { SmartMoneyRepository } from '../smart-money-repository.js'
import { trackedWalletsOf, TrackedWalletsView } from '../tracked-wallets-view.js'

/**
 * The tracked set as GET /wallets lists it (the tracked-wallets file's wallets and the
 * latest run's rule passers), for the stream's `tracked=true`: built once per run and
 * reading of the file, a new run's in the background (kept-tracked-set.ts). Statistics are
 * not read: only the addresses are needed.
 */
export function streamTrackedWallets(repository: SmartMoneyRepository, file: TrackedWalletsFile, rules: readonly SmartMoneyRule[]): () => Promise<ReadonlySet<string>> {
  const sets = new KeptTrackedSet(async (run, listed) => {
    const passers = new Map<string, string[]>()
    for (const [rule, passing] of await repository.passersByRule(run, rules)) {
      for (const wallet of passing) passers.set(wallet, [...(passers.get(wallet) ?? []), rule])
    }
    return new TrackedWalletsView(trackedWalletsOf(listed, passers, null), new Map())
  })
  const addresses = new WeakMap<TrackedWalletsView, ReadonlySet<string>>()
  return async () => {
    const { view } = await sets.current(await repository.latestRun(), await file.current())
    let set = addresses.get(view)
    if (set === undefined) {
      set = new Set(view.wallets.map((w) => w.wallet))
      addresses.set(view, set)
    }
    return set
  }
}
