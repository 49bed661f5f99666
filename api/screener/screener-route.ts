import { Router } from 'express'
import { HOUR_MS } from '../../shared/platform/time-units.js'
import { parseRequest } from '../contract/request-parsing.js'
import { roundValue } from '../number-rounding.js'
import type { TokenDirectory } from '../token-directory.js'
import { readOptionsOf } from '../versioned-results.js'
import { listSmartMoneyTokens } from './screener-endpoint.js'
import type { ScreenerRepository } from './screener-repository.js'
import type { ScreenerScope } from './screener-tracked-set.js'

export interface ScreenerDeps {
  screener: ScreenerRepository
  directory: TokenDirectory
  /** The tracked set answering now (screener-tracked-set.ts). */
  tracked: () => Promise<ScreenerScope>
}

/**
 * GET /smart-money/tokens?window&sort&limit&offset: where the tracked wallets' money flows
 * (beyond the interface). The screening is kept (screener-repository.ts); token metadata,
 * names and labels are applied at every request.
 */
export function screenerRouter(deps: ScreenerDeps): Router {
  const router = Router()

  router.get('/smart-money/tokens', async (req, res) => {
    const { query } = parseRequest(listSmartMoneyTokens, req)
    const scope = await deps.tracked()
    const screening = await deps.screener.screen(query.window, query.sort, scope, readOptionsOf(req))
    await deps.directory.fresh()
    const page = screening.tokens.slice(query.offset, query.offset + query.limit)
    res.json({
      status: 'success',
      result: page.map((t) => ({
        token: deps.directory.ref(t.token),
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
    })
  })

  return router
}
