import { Router } from 'express'
import { HOUR_MS } from '../../shared/platform/time-units.js'
import { parseRequest } from '../contract/request-parsing.js'
import { roundValue } from '../number-rounding.js'
import type { TokenDirectory } from '../token-directory.js'
import { readOptionsOf } from '../versioned-results.js'
import { listSmartMoneyTokens, type ScreenerSort, type ScreenerWindow } from './screener-endpoint.js'
import type { ScreenedToken, ScreenerRepository, Screening } from './screener-repository.js'
import type { ScreenerScope } from './screener-tracked-set.js'

export interface ScreenerDeps {
  screener: ScreenerRepository
  directory: TokenDirectory
  /** The tracked set answering now (screener-tracked-set.ts). */
  tracked: () => Promise<ScreenerScope>
}

/**
 * GET /smart-money/tokens?window&sort&limit&offset: where the tracked wallets' money flows
 * (beyond the interface). The screening is kept (screener-repository.ts), and each page's
 * body with it while the token metadata and the tracked set stay as they were.
 */
export function screenerRouter(deps: ScreenerDeps): Router {
  const router = Router()
  const bodies = new KeptBodies()

  router.get('/smart-money/tokens', async (req, res) => {
    const { query } = parseRequest(listSmartMoneyTokens, req)
    const scope = await deps.tracked()
    const screening = await deps.screener.screen(query.window, query.sort, scope, readOptionsOf(req))
    await deps.directory.fresh()
    const page = `${query.sort} ${query.offset} ${query.limit} ${deps.directory.version}`
    res.type('json').send(bodies.of(scope, screening.tokens, page, () => JSON.stringify(responseOf(deps.directory, scope, screening, query))))
  })

  return router
}

type ScreenerQuery = { window: ScreenerWindow; sort: ScreenerSort; limit: number; offset: number }

function responseOf(directory: TokenDirectory, scope: ScreenerScope, screening: Screening, query: ScreenerQuery) {
  const page = screening.tokens.slice(query.offset, query.offset + query.limit)
  return {
    status: 'success',
    result: page.map((t) => ({
      token: directory.ref(t.token),
      bought_value_usd: roundValue(t.boughtUsd),
      sold_value_usd: roundValue(t.soldUsd),
      net_flow_usd: roundValue(t.boughtUsd - t.soldUsd),
      volume_usd: roundValue(t.boughtUsd + t.soldUsd),
      buyers: t.buyers,
      sellers: t.sellers,
      swaps: t.swaps,
      swaps_without_usd: t.swapsWithoutUsd,
      top_wallets: t.top.map(([wallet, net, bought, sold]) => ({
        wallet_address: wallet,
        ...scope.shown(wallet),
        net_value_usd: roundValue(net),
        bought_value_usd: roundValue(bought),
        sold_value_usd: roundValue(sold),
      })),
    })),
    summary: {
      window: query.window,
      sort: query.sort,
      start_time: new Date(screening.firstHour * HOUR_MS).toISOString(),
      end_time: new Date((screening.lastHour + 1) * HOUR_MS - 1).toISOString(),
      tracked_wallets: scope.wallets.length,
    },
    pagination: { total: screening.tokens.length, limit: query.limit, offset: query.offset },
  }
}

/** Pages kept per screening and tracked set: one page holds this many bodies at most. */
const MAX_BODIES = 64

/**
 * The response bodies of the kept screenings, by page and token-directory version: a
 * repeated request writes a string it already has. A new screening or tracked set is a new
 * object, so the bodies of the old ones go with them.
 */
class KeptBodies {
  private readonly byScope = new WeakMap<ScreenerScope, WeakMap<readonly ScreenedToken[], Map<string, string>>>()

  of(scope: ScreenerScope, tokens: readonly ScreenedToken[], page: string, build: () => string): string {
    let byTokens = this.byScope.get(scope)
    if (byTokens === undefined) this.byScope.set(scope, (byTokens = new WeakMap()))
    let bodies = byTokens.get(tokens)
    if (bodies === undefined) byTokens.set(tokens, (bodies = new Map()))
    let body = bodies.get(page)
    if (body === undefined) {
      if (bodies.size >= MAX_BODIES) bodies.clear()
      bodies.set(page, (body = build()))
    }
    return body
  }
}
