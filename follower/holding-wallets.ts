import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'

/** Whose holdings the follower reads (FOLLOW_HOLDINGS). */
export type HoldingWalletsMode = 'all' | 'listed' | 'off'

/**
 * The wallets whose holdings the follower keeps: `all` (every wallet whose swap it records:
 * the service stores and serves every followed wallet, so they are its tracked set as far
 * as the chain goes), `listed` (only the wallets of TRACKED_WALLETS_FILE, re-read when the
 * file changes), or `off`. The wallets that pass a smart-money rule are not known here: the
 * rules need the stored statistics, and the follower reads the node and Redis only.
 */
export class HoldingWallets {
  private readonly file: TrackedWalletsFile | null

  constructor(
    readonly mode: HoldingWalletsMode,
    trackedWalletsFile: string | null,
  ) {
    if (mode === 'listed' && trackedWalletsFile === null) throw new Error('FOLLOW_HOLDINGS=listed needs TRACKED_WALLETS_FILE')
    this.file = mode === 'listed' ? new TrackedWalletsFile(trackedWalletsFile) : null
  }

  /** The (wallet, token) pairs of `traded` whose wallet is kept, each once. */
  async select(traded: ReadonlyArray<readonly [string, string]>): Promise<Array<[string, string]>> {
    if (this.mode === 'off' || traded.length === 0) return []
    const listed = this.file ? (await this.file.current()).wallets : null
    const seen = new Set<string>()
    const out: Array<[string, string]> = []
    for (const [wallet, token] of traded) {
      const key = `${wallet}:${token}`
      if (seen.has(key) || (listed !== null && !listed.has(wallet))) continue
      seen.add(key)
      out.push([wallet, token])
    }
    return out
  }
}
