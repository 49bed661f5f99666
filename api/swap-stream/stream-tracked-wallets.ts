import type { ScreenerScope } from '../screener/screener-tracked-set.js'

/**
 * The tracked set's addresses for the stream's `tracked=true`: the set the screener reads
 * (the wallets GET /wallets lists, built once per statistics run and reading of the
 * tracked-wallets file), as a set, made once per scope.
 */
export function trackedAddresses(scope: () => Promise<ScreenerScope>): () => Promise<ReadonlySet<string>> {
  const sets = new WeakMap<ScreenerScope, ReadonlySet<string>>()
  return async () => {
    const current = await scope()
    let set = sets.get(current)
    if (set === undefined) {
      set = new Set(current.wallets)
      sets.set(current, set)
    }
    return set
  }
}
