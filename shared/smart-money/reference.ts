import { applyLeg, type Position } from './position-step.js'
import { emptyWindowStats, type StatSwap, type WalletStats, type WindowStats } from './wallet-stats.js'
import { windowStartMs } from './windows.js'
import { STAT_WINDOWS, type StatWindow } from '../platform/smart-money-settings.js'

/**
 * The statistics in plain TypeScript, one leg at a time: the reference the ClickHouse
 * computation (stats-query.ts) is tested against. Legs of one (wallet, token) are applied
 * in (time, hash, chain, sell before buy) order.
 */

interface Leg {
  swap: StatSwap
  side: 'sell' | 'buy'
  token: string
  amount: bigint
}

function legsOf(swap: StatSwap): Leg[] {
  return [
    { swap, side: 'sell', token: swap.soldToken, amount: swap.soldAmount },
    { swap, side: 'buy', token: swap.boughtToken, amount: swap.boughtAmount },
  ]
}

function compareLegs(a: Leg, b: Leg): number {
  return (
    a.swap.timestampMs - b.swap.timestampMs ||
    (a.swap.hash < b.swap.hash ? -1 : a.swap.hash > b.swap.hash ? 1 : 0) ||
    a.swap.chainId - b.swap.chainId ||
    (a.side === b.side ? 0 : a.side === 'sell' ? -1 : 1)
  )
}

/** Latest USD price per raw unit of each token, from its latest leg with a value and an amount. */
function markPrices(legs: Leg[]): Map<string, number> {
  const latest = new Map<string, Leg>()
  for (const leg of legs) {
    if (leg.swap.valueUsd === null || leg.amount === 0n) continue
    const seen = latest.get(leg.token)
    if (!seen || compareLegs(seen, leg) < 0) latest.set(leg.token, leg)
  }
  return new Map([...latest].map(([token, leg]) => [token, leg.swap.valueUsd! / Number(leg.amount)]))
}

export function referenceWalletStats(swaps: readonly StatSwap[], asOfMs: number): WalletStats[] {
  const live = swaps.filter((s) => s.timestampMs <= asOfMs)
  const allLegs = live.flatMap(legsOf)
  const marks = markPrices(allLegs)
  const starts = STAT_WINDOWS.map((w) => [w, windowStartMs(w, asOfMs)] as const)

  const byWallet = new Map<string, StatSwap[]>()
  for (const s of live) byWallet.set(s.wallet, [...(byWallet.get(s.wallet) ?? []), s])

  const result: WalletStats[] = []
  for (const [wallet, own] of byWallet) {
    const windows = Object.fromEntries(STAT_WINDOWS.map((w) => [w, emptyWindowStats()])) as Record<StatWindow, WindowStats>
    const tokens = Object.fromEntries(STAT_WINDOWS.map((w) => [w, new Set<string>()])) as Record<StatWindow, Set<string>>
    for (const s of own) {
      for (const [w, start] of starts) {
        if (s.timestampMs < start) continue
        const ws = windows[w]
        ws.trades += 1
        if (s.valueUsd === null) ws.tradesWithoutUsd += 1
        else ws.volumeUsd += s.valueUsd
        tokens[w].add(s.soldToken).add(s.boughtToken)
        ws.firstTradeMs = ws.firstTradeMs === null ? s.timestampMs : Math.min(ws.firstTradeMs, s.timestampMs)
        ws.lastTradeMs = ws.lastTradeMs === null ? s.timestampMs : Math.max(ws.lastTradeMs, s.timestampMs)
      }
    }

    const byToken = new Map<string, Leg[]>()
    for (const leg of own.flatMap(legsOf)) byToken.set(leg.token, [...(byToken.get(leg.token) ?? []), leg])
    let unrealized = 0
    let open = 0
    for (const [token, legs] of byToken) {
      legs.sort(compareLegs)
      const position: Position = { quantity: 0n, costUsd: 0 }
      for (const leg of legs) {
        const outcome = applyLeg(position, leg.side, leg.amount, leg.swap.valueUsd)
        for (const [w, start] of starts) {
          if (leg.swap.timestampMs < start) continue
          const ws = windows[w]
          ws.unmatchedProceedsUsd += outcome.unmatchedProceedsUsd
          if (!outcome.reduced) continue
          ws.realizedPnlUsd += outcome.realizedUsd
          ws.closedCostUsd += outcome.closedCostUsd
          ws.matchedProceedsUsd += outcome.matchedProceedsUsd
          ws.positionsReduced += 1
          if (outcome.realizedUsd > 0) ws.positionsWon += 1
        }
      }
      const mark = marks.get(token)
      if (position.quantity > 0n && mark !== undefined) {
        unrealized += Number(position.quantity) * mark - position.costUsd
        open += 1
      }
    }
    for (const w of STAT_WINDOWS) {
      const ws = windows[w]
      ws.tokensTraded = tokens[w].size
      ws.roi = ws.closedCostUsd > 0 ? ws.realizedPnlUsd / ws.closedCostUsd : null
      ws.winRate = ws.positionsReduced > 0 ? ws.positionsWon / ws.positionsReduced : null
    }
    result.push({ wallet, windows, unrealizedPnlUsd: unrealized, openPositions: open })
  }
  return result.sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0))
}
