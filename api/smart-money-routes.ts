import { Router } from 'express'
import { describeRule, judgeThreshold, judgeTop, measureOf, type RuleVerdict } from '../shared/smart-money/rules.js'
import { LISTED_LABEL, type SmartMoneyRule } from '../shared/platform/smart-money-settings.js'
import type { TrackedWallets, TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { trackedWalletAddresses } from '../shared/smart-money/tracked-generations.js'
import { emptyWalletStats, NO_OPEN_POSITIONS, type OpenPositions, type WalletWindows, type WindowStats } from '../shared/smart-money/wallet-stats.js'
import { getSmartMoneyRules, getWalletProfile, listTrackedWallets } from './contract/endpoints/smart-money.js'
import { parseRequest } from './contract/request-parsing.js'
import { badRequest } from './http-error.js'
import { roundNullable, roundValue } from './number-rounding.js'
import type { SmartMoneyRepository } from './smart-money-repository.js'
import { KeptTrackedSet } from './kept-tracked-set.js'
import { trackedWalletsOf, TrackedWalletsView } from './tracked-wallets-view.js'
import type { WalletStatsRun } from '../shared/smart-money/store-wallet-stats.js'

export interface SmartMoneyDeps {
  repository: SmartMoneyRepository
  trackedWallets: TrackedWalletsFile
  rules: readonly SmartMoneyRule[]
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The USD figures and ratios to 12 significant digits (number-rounding.ts); counts and times as they are. */
function windowStatsJson(s: WindowStats) {
  return {
    trades: s.trades,
    trades_without_usd: s.tradesWithoutUsd,
    volume_usd: roundValue(s.volumeUsd),
    realized_pnl_usd: roundValue(s.realizedPnlUsd),
    closed_cost_usd: roundValue(s.closedCostUsd),
    matched_proceeds_usd: roundValue(s.matchedProceedsUsd),
    unmatched_proceeds_usd: roundValue(s.unmatchedProceedsUsd),
    roi: roundNullable(s.roi),
    positions_reduced: s.positionsReduced,
    positions_won: s.positionsWon,
    win_rate: roundNullable(s.winRate),
    tokens_traded: s.tokensTraded,
    first_trade: iso(s.firstTradeMs),
    last_trade: iso(s.lastTradeMs),
  }
}

/**
 * Who is smart money (beyond the interface). The tracked set is the wallets of the
 * tracked-wallets file (label "listed") and those passing a selection rule (label: the
 * rule's id), each with the verdict behind its labels; statistics are the latest stored run.
 */
export function smartMoneyRouter(deps: SmartMoneyDeps): Router {
  const router = Router()

  const sets = new KeptTrackedSet((run, listed) => buildView(deps, run, listed))
  /**
   * The tracked set answering now, and the latest run. They differ while the latest run's set
   * is built (the previous run's answers meanwhile): then what is read from the store is read
   * from the latest run, since wallet_stats and the positions keep only each key's latest run
   * once their parts merge, and the answering run's rows may be gone.
   */
  const currentSet = async () => {
    const latest = await deps.repository.latestRun()
    const set = await sets.current(latest, await deps.trackedWallets.current())
    const storeRun = set.run !== null && latest !== null && latest.computedAtMs > set.run.computedAtMs ? latest : set.run
    return { ...set, storeRun }
  }
  // Valued once per view (its run's), read from the store for the wallets it has not valued yet; from a newer run uncached.
  const openPositions = async (view: TrackedWalletsView, viewRun: WalletStatsRun, storeRun: WalletStatsRun, wallets: readonly string[]) => {
    if (storeRun === viewRun) return view.openPositionsOf(wallets, (missing) => deps.repository.openPositionsOf(viewRun, missing))
    const read = await deps.repository.openPositionsOf(storeRun, wallets)
    return new Map(wallets.map((w) => [w, read.get(w) ?? NO_OPEN_POSITIONS]))
  }

  router.get('/wallets', async (req, res) => {
    const { query } = parseRequest(listTrackedWallets, req)
    const labels = [LISTED_LABEL, ...deps.rules.map((r) => r.id)]
    // A label no rule gives is a typo, not a label nobody carries yet.
    if (query.label !== undefined && !labels.includes(query.label)) throw badRequest(`label: no such label "${query.label}"; the labels are ${labels.join(', ')}`)
    const { run, listed, view, storeRun } = await currentSet()
    const rows = view.ordered(query)
    const page = rows.slice(query.offset, query.offset + query.limit)
    const valued = run && storeRun ? await openPositions(view, run, storeRun, page.filter((r) => r.stats).map((r) => r.wallet)) : new Map<string, OpenPositions>()
    res.json({
      status: 'success',
      result: page.map((r) => ({
        wallet_address: r.wallet,
        name: listed.wallets.get(r.wallet) ?? null,
        labels: r.labels,
        evidence: r.stats
          ? deps.rules
              .filter((rule) => r.labels.includes(rule.id))
              .map((rule) => verdictJson(rule.kind === 'top' ? judgeTop(rule, r.stats!, view.rank(rule.id, r.wallet)) : judgeThreshold(rule, r.stats!)))
          : [],
        stats: r.stats ? windowStatsJson(r.stats.windows[query.window]) : null,
        unrealized_pnl_usd: roundNullable(valued.get(r.wallet)?.unrealizedPnlUsd ?? null),
      })),
      summary: { window: query.window, computed_at: run ? iso(run.computedAtMs) : null },
      pagination: { total: rows.length, limit: query.limit, offset: query.offset },
    })
  })

  router.get('/wallets/:address', async (req, res) => {
    const { params } = parseRequest(getWalletProfile, req)
    const wallet = params.address
    // A tracked wallet's statistics and ranks are in the run's kept set; any other is read from the store,
    // and every wallet is while a newer run's set is built: the profile is then the newer run's, whole.
    const { run: setRun, listed, view, storeRun: run } = await currentSet()
    const fromSet = run === setRun
    const stats =
      (fromSet ? view.statsOf(wallet) : undefined) ?? (run ? (await deps.repository.windowsOf(run, [wallet])).get(wallet) : undefined) ?? emptyWalletStats(wallet)
    const open = run && setRun ? (await openPositions(view, setRun, run, [wallet])).get(wallet)! : NO_OPEN_POSITIONS
    const verdicts: RuleVerdict[] = []
    for (const rule of deps.rules) {
      if (rule.kind === 'threshold') verdicts.push(judgeThreshold(rule, stats))
      else {
        const value = measureOf(stats.windows[rule.window], rule.measure)
        const rank = (fromSet ? view.rank(rule.id, wallet) : null) ?? (run ? await deps.repository.rank(run, rule, wallet, value) : null)
        verdicts.push(judgeTop(rule, stats, rank))
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
        unrealized_pnl_usd: roundValue(open.unrealizedPnlUsd),
        open_positions: open.openPositions,
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

/** The tracked set of a run and a reading of the file: the rules' passers (top rules with their ranks) and every tracked wallet's statistics. */
async function buildView(deps: SmartMoneyDeps, run: WalletStatsRun | null, listed: TrackedWallets): Promise<TrackedWalletsView> {
  const passers = new Map<string, string[]>()
  const ranks = new Map<string, Map<string, number>>()
  const byRule = await deps.repository.passersByRule(run, deps.rules)
  for (const [rule, passing] of byRule) {
    ranks.set(rule, new Map(passing.map((w, i) => [w, i + 1])))
    for (const wallet of passing) passers.set(wallet, [...(passers.get(wallet) ?? []), rule])
  }
  // The same set the interface's reads serve with SERVED_WALLETS=tracked (indicators/tracked-set-publisher.ts).
  const wallets = trackedWalletAddresses(listed, byRule)
  let stats: Map<string, WalletWindows> | null = null
  if (run) {
    const read = await deps.repository.windowsOf(run, wallets)
    stats = new Map(wallets.map((w) => [w, read.get(w) ?? emptyWalletStats(w)]))
  }
  return new TrackedWalletsView(trackedWalletsOf(listed, passers, stats), ranks)
}

function verdictJson(v: RuleVerdict) {
  return { rule: v.rule, window: v.window, passes: v.passes, checks: v.checks.map((c) => ({ ...c, value: roundNullable(c.value) })) }
}
