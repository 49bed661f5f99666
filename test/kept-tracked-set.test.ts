import { describe, expect, it } from 'vitest'
import { KeptTrackedSet } from '../api/kept-tracked-set.js'
import { trackedWalletsOf, TrackedWalletsView } from '../api/tracked-wallets-view.js'
import type { TrackedWallets } from '../shared/smart-money/tracked-wallets-file.js'
import type { WalletStatsRun } from '../shared/smart-money/store-wallet-stats.js'

const runAt = (ms: number): WalletStatsRun => ({ computedAtMs: ms, asOfMs: ms, changesPosition: ms, wallets: 0, durationMs: 0, kind: 'full', positionsSinceMs: ms })
const reading = (): TrackedWallets => ({ wallets: new Map(), problems: [] })

/** Builds on demand, each build held until released, counting builds. */
function controlledBuilds() {
  const pending: Array<() => void> = []
  let builds = 0
  const build = () => {
    builds++
    return new Promise<TrackedWalletsView>((resolve) => pending.push(() => resolve(new TrackedWalletsView(trackedWalletsOf(reading(), new Map(), null), new Map()))))
  }
  return { build, release: () => pending.shift()?.(), builds: () => builds }
}

describe('the kept tracked set', () => {
  it('is built once per run and reading, however many requests wait for it', async () => {
    const c = controlledBuilds()
    const sets = new KeptTrackedSet(c.build)
    const listed = reading()
    const waiting = [sets.current(runAt(1), listed), sets.current(runAt(1), listed)]
    c.release()
    const [a, b] = await Promise.all(waiting)
    expect(a).toBe(b)
    expect(await sets.current(runAt(1), listed)).toBe(a)
    expect(c.builds()).toBe(1)
  })

  it('a new run is read in the background: the previous run answers meanwhile, then the new one', async () => {
    const c = controlledBuilds()
    const sets = new KeptTrackedSet(c.build)
    const listed = reading()
    const first = sets.current(runAt(1), listed)
    c.release()
    expect((await first).run?.computedAtMs).toBe(1)
    expect((await sets.current(runAt(2), listed)).run?.computedAtMs).toBe(1)
    expect((await sets.current(runAt(2), listed)).run?.computedAtMs).toBe(1)
    expect(c.builds()).toBe(2)
    c.release()
    await new Promise((r) => setImmediate(r))
    expect((await sets.current(runAt(2), listed)).run?.computedAtMs).toBe(2)
  })

  it('the first run is awaited, not answered with the set from before it', async () => {
    const c = controlledBuilds()
    const sets = new KeptTrackedSet(c.build)
    const listed = reading()
    const none = sets.current(null, listed)
    c.release()
    expect((await none).run).toBeNull()
    let answered = false
    const first = sets.current(runAt(1), listed).then((s) => ((answered = true), s))
    await new Promise((r) => setImmediate(r))
    expect(answered).toBe(false)
    c.release()
    expect((await first).run?.computedAtMs).toBe(1)
  })

  it('an edit of the file is answered only once its set is built', async () => {
    const c = controlledBuilds()
    const sets = new KeptTrackedSet(c.build)
    const first = sets.current(runAt(1), reading())
    c.release()
    await first
    const edited = reading()
    let answered = false
    const next = sets.current(runAt(1), edited).then((s) => ((answered = true), s))
    await new Promise((r) => setImmediate(r))
    expect(answered).toBe(false)
    c.release()
    expect((await next).listed).toBe(edited)
  })

  it('a failed build is not kept: the next request builds again', async () => {
    let calls = 0
    const sets = new KeptTrackedSet(async () => {
      if (calls++ === 0) throw new Error('ClickHouse away')
      return new TrackedWalletsView([], new Map())
    })
    const listed = reading()
    await expect(sets.current(runAt(1), listed)).rejects.toThrow('ClickHouse away')
    expect((await sets.current(runAt(1), listed)).run?.computedAtMs).toBe(1)
  })
})
