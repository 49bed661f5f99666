import { describe, expect, it } from 'vitest'
import { trackedWalletsOf, TrackedWalletsView } from '../api/tracked-wallets-view.js'
import { emptyWalletStats, type WalletStats } from '../shared/smart-money/wallet-stats.js'
import { addressFor } from './support/factories.js'

const [a, b, c, d] = ['view-a', 'view-b', 'view-c', 'view-d'].map(addressFor).sort() as [string, string, string, string]

function statsWith(wallet: string, pnl: number, roi: number | null): WalletStats {
  const stats = emptyWalletStats(wallet)
  stats.windows['90d'] = { ...stats.windows['90d'], realizedPnlUsd: pnl, roi }
  return stats
}

describe('the tracked set of a run, in the orders asked for', () => {
  const listed = { wallets: new Map([[c, 'Carol'], [d, null]]), problems: [] }
  const passers = new Map([
    [a, ['smart']],
    [b, ['smart', 'top']],
    [c, ['top']],
  ])
  const stats = new Map([a, b, c, d].map((w, i) => [w, statsWith(w, [30, 10, 30, -5][i]!, [null, 0.5, 0.2, null][i]!)]))
  const view = new TrackedWalletsView(trackedWalletsOf(listed, passers, stats), new Map([['top', new Map([[b, 1], [c, 2]])]]))

  it('labels each wallet once: listed first, then its rules in order', () => {
    expect(view.wallets.map((w) => [w.wallet, w.labels])).toEqual([
      [c, ['listed', 'top']],
      [d, ['listed']],
      [a, ['smart']],
      [b, ['smart', 'top']],
    ])
    expect(view.rank('top', c)).toBe(2)
    expect(view.rank('top', a)).toBeNull()
    expect(view.statsOf(b)?.windows['90d'].realizedPnlUsd).toBe(10)
    expect(view.statsOf(addressFor('view-untracked'))).toBeUndefined()
  })

  it('sorts by the window\'s statistic, ties by address, nulls last in either order', () => {
    const order = (sort: 'pnl' | 'roi', dir: 'asc' | 'desc', label?: string) => view.ordered({ window: '90d', sort, order: dir, label }).map((w) => w.wallet)
    // a < b < c < d by address
    expect(order('pnl', 'desc')).toEqual([a, c, b, d])
    expect(order('pnl', 'asc')).toEqual([d, b, a, c])
    expect(order('roi', 'desc')).toEqual([b, c, a, d])
    expect(order('roi', 'asc')).toEqual([c, b, a, d])
    expect(order('pnl', 'desc', 'top')).toEqual([c, b])
    expect(order('pnl', 'desc', 'nobody-has-this')).toEqual([])
  })

  it('sorts an order once and keeps it until the view is replaced', () => {
    const first = view.ordered({ window: '90d', sort: 'pnl', order: 'desc' })
    expect(view.ordered({ window: '90d', sort: 'pnl', order: 'desc' })).toBe(first)
    expect(view.ordered({ window: '90d', sort: 'pnl', order: 'asc' })).not.toBe(first)
  })

  it('values a wallet\'s open positions the first time it is shown, and keeps the figures until the view is replaced', async () => {
    const asked: string[][] = []
    const read = async (wallets: string[]) => {
      asked.push(wallets)
      return new Map(wallets.filter((w) => w !== d).map((w) => [w, { unrealizedPnlUsd: w === a ? 12.5 : 0, openPositions: w === a ? 2 : 0 }]))
    }
    const fresh = new TrackedWalletsView(trackedWalletsOf(listed, passers, stats), new Map())
    expect(await fresh.openPositionsOf([a, d], read)).toEqual(new Map([[a, { unrealizedPnlUsd: 12.5, openPositions: 2 }], [d, { unrealizedPnlUsd: 0, openPositions: 0 }]]))
    expect((await fresh.openPositionsOf([b, a], read)).get(a)).toEqual({ unrealizedPnlUsd: 12.5, openPositions: 2 })
    expect(asked).toEqual([[a, d], [b]])
  })

  it('before the first computation every wallet has null statistics and keeps its address order', () => {
    const none = new TrackedWalletsView(trackedWalletsOf(listed, new Map(), null), new Map())
    expect(none.ordered({ window: 'all', sort: 'pnl', order: 'desc' }).map((w) => [w.wallet, w.stats])).toEqual(
      [[c, null], [d, null]],
    )
  })
})
