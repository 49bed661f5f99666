import { Router } from 'express'
import {
  describeRule,
  judgeThreshold,
  judgeTop,
  LISTED_LABEL,
  measureOf,
  type RuleVerdict,
  type SmartMoneyRule,
} from '../shared/smart-money-rules.js'
import type { TrackedWalletsFile } from '../shared/wallet-stats/tracked-wallets-file.js'
import { emptyWalletStats, type WalletStats, type WindowStats } from '../shared/wallet-stats/wallet-stats.js'
import { getSmartMoneyRules, getWalletProfile, listTrackedWallets, type WalletSort } from './contract/endpoints/smart-money.js'
import { parseRequest } from './contract/request-parsing.js'
import type { SmartMoneyRepository } from './smart-money-repository.js'
import type { WalletStatsRun } from '../shared/wallet-stats/store-wallet-stats.js'

export interface SmartMoneyDeps {
  repository: SmartMoneyRepository
  trackedWallets: TrackedWalletsFile
  rules: readonly SmartMoneyRule[]
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function windowStatsJson(s: WindowStats) {
  return {
    trades: s.trades,
    trades_without_usd: s.tradesWithoutUsd,
    volume_usd: s.volumeUsd,
    realized_pnl_usd: s.realizedPnlUsd,
    closed_cost_usd: s.closedCostUsd,
    matched_proceeds_usd: s.matchedProceedsUsd,
    unmatched_proceeds_usd: s.unmatchedProceedsUsd,
    roi: s.roi,
    positions_reduced: s.positionsReduced,
    positions_won: s.positionsWon,
    win_rate: s.winRate,
    tokens_traded: s.tokensTraded,
    first_trade: iso(s.firstTradeMs),
    last_trade: iso(s.lastTradeMs),
  }
}

const SORT_VALUE: Record<WalletSort, (s: WindowStats) => number | null> = {
  pnl: (s) => s.realizedPnlUsd,
  roi: (s) => s.roi,
  win_rate: (s) => s.winRate,
  volume: (s) => s.volumeUsd,
  last_trade: (s) => s.lastTradeMs,
}

/**
 * Who is smart money (beyond the interface). The tracked set is the wallets of the
 * tracked-wallets file (label "listed") and those passing a selection rule (label: the
 * rule's id), each with the verdict behind its labels; statistics are the latest stored run.
 */
export function smartMoneyRouter(deps: SmartMoneyDeps): Router {
  const router = Router()

  // A run's statistics never change: its rule passers and the statistics read are kept in
  // memory until the next run, so a request reads the latest run's time and sorts in memory.
  let kept: { runAt: number; selection: Promise<Selection>; stats: Map<string, WalletStats> } | null = null
  const keptFor = (run: WalletStatsRun) => {
    if (kept?.runAt !== run.computedAtMs) {
      const selection = select(deps, run)
      selection.catch(() => (kept = null))
      kept = { runAt: run.computedAtMs, selection, stats: new Map() }
    }
    return kept
  }
  const selection = (run: WalletStatsRun) => keptFor(run).selection
  const statsOf = async (run: WalletStatsRun, wallets: string[]) => {
    const k = keptFor(run)
    const missing = wallets.filter((w) => !k.stats.has(w))
    if (missing.length > 0) {
      const read = await deps.repository.statsOf(run, missing)
      for (const w of missing) k.stats.set(w, read.get(w) ?? emptyWalletStats(w))
    }
    return new Map(wallets.map((w) => [w, k.stats.get(w)!]))
  }

  router.get('/wallets', async (req, res) => {
    const { query } = parseRequest(listTrackedWallets, req)
    const [run, listed] = [await deps.repository.latestRun(), await deps.trackedWallets.current()]
    const selected = run ? await selection(run) : { passers: new Map<string, string[]>(), ranks: new Map<string, Map<string, number>>() }
    const labels = new Map<string, string[]>([...listed.wallets.keys()].map((w) => [w, [LISTED_LABEL]]))
    for (const [wallet, ids] of selected.passers) labels.set(wallet, [...(labels.get(wallet) ?? []), ...ids])
    const ranks = selected.ranks
    const stats = run ? await statsOf(run, [...labels.keys()]) : new Map<string, WalletStats>()
    const sortValue = SORT_VALUE[query.sort]
    const direction = query.order === 'asc' ? 1 : -1
    const rows = [...labels]
      .filter(([, own]) => query.label === undefined || own.includes(query.label))
      .map(([wallet, own]) => ({ wallet, own, stats: stats.get(wallet) ?? null }))
      .map((r) => ({ ...r, value: r.stats ? sortValue(r.stats.windows[query.window]) : null }))
      .sort((a, b) => {
        if (a.value !== b.value) {
          if (a.value === null) return 1
          if (b.value === null) return -1
          return (a.value - b.value) * direction
        }
        return a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0
      })
    const page = rows.slice(query.offset, query.offset + query.limit)
    res.json({
      status: 'success',
      result: page.map((r) => ({
        wallet_address: r.wallet,
        name: listed.wallets.get(r.wallet) ?? null,
        labels: r.own,
        evidence: r.stats
          ? deps.rules
              .filter((rule) => r.own.includes(rule.id))
              .map((rule) => verdictJson(rule.kind === 'top' ? judgeTop(rule, r.stats!, ranks.get(rule.id)?.get(r.wallet) ?? null) : judgeThreshold(rule, r.stats!)))
          : [],
        stats: r.stats ? windowStatsJson(r.stats.windows[query.window]) : null,
        unrealized_pnl_usd: r.stats ? r.stats.unrealizedPnlUsd : null,
      })),
      summary: { window: query.window, computed_at: run ? iso(run.computedAtMs) : null },
      pagination: { total: rows.length, limit: query.limit, offset: query.offset },
    })
  })

  router.get('/wallets/:address', async (req, res) => {
    const { params } = parseRequest(getWalletProfile, req)
    const wallet = params.address
    const [run, listed] = [await deps.repository.latestRun(), await deps.trackedWallets.current()]
    const stats = (run ? (await deps.repository.statsOf(run, [wallet])).get(wallet) : undefined) ?? emptyWalletStats(wallet)
    const verdicts: RuleVerdict[] = []
    for (const rule of deps.rules) {
      if (rule.kind === 'threshold') verdicts.push(judgeThreshold(rule, stats))
      else {
        const value = measureOf(stats.windows[rule.window], rule.measure)
        verdicts.push(judgeTop(rule, stats, run ? await deps.repository.rank(run, rule, wallet, value) : null))
      }
    }
    const labels = [...(listed.wallets.has(wallet) ? [LISTED_LABEL] : []), ...verdicts.filter((v) => v.passes).map((v) => v.rule)]
    res.json({
      status: 'success',
      result: {
        wallet_address: wallet,
        name: listed.wallets.get(wallet) ?? null,
        labels,
        computed_at: run ? iso(run.computedAtMs) : null,
        windows: Object.fromEntries(Object.entries(stats.windows).map(([w, s]) => [w, windowStatsJson(s)])),
        unrealized_pnl_usd: stats.unrealizedPnlUsd,
        open_positions: stats.openPositions,
        rules: verdicts.map(verdictJson),
      },
    })
  })

  router.get('/smart-money/rules', async (req, res) => {
    parseRequest(getSmartMoneyRules, req)
    const [run, listed] = [await deps.repository.latestRun(), await deps.trackedWallets.current()]
    res.json({
      status: 'success',
      result: {
        rules: deps.rules.map((rule) => ({ ...rule, description: describeRule(rule) })),
        tracked_wallets_file: { configured: deps.trackedWallets.configured, wallets: listed.wallets.size, problems: listed.problems },
        statistics: { computed_at: run ? iso(run.computedAtMs) : null, wallets: run?.wallets ?? 0, duration_ms: run?.durationMs ?? null },
      },
    })
  })

  return router
}

interface Selection {
  /** Wallet → ids of the rules it passes, in rule order. */
  passers: Map<string, string[]>
  /** Rule id → wallet → place in the rule's list (top rules rank by it). */
  ranks: Map<string, Map<string, number>>
}

async function select(deps: SmartMoneyDeps, run: WalletStatsRun): Promise<Selection> {
  const passers = new Map<string, string[]>()
  const ranks = new Map<string, Map<string, number>>()
  for (const rule of deps.rules) {
    const passing = await deps.repository.passing(run, rule)
    ranks.set(rule.id, new Map(passing.map((w, i) => [w, i + 1])))
    for (const wallet of passing) passers.set(wallet, [...(passers.get(wallet) ?? []), rule.id])
  }
  return { passers, ranks }
}

function verdictJson(v: RuleVerdict) {
  return { rule: v.rule, window: v.window, passes: v.passes, checks: v.checks }
}
