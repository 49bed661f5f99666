import { Router } from 'express'
import { getTokenFlows } from './contract/endpoints/wallets.js'
import { parseRequest } from './contract/request-parsing.js'
import { sendResult } from './envelope.js'
import { notFound } from './http-error.js'
import type { TokenDirectory } from './token-directory.js'
import type { TokenFlowsRepository } from './token-flows-repository.js'
import type { TokenPresence } from './token-presence.js'
import { readOptionsOf } from './versioned-results.js'
import type { ServedWallets } from './served-wallets.js'

/**
 * GET /tokens/:contract_address/flows?start_time&end_time[&top]: the smart-money net flow
 * of a token over a window (beyond the interface): what the tracked wallets bought and
 * sold, in token units and USD, how many did each, and the `top` wallets by net USD in
 * each direction (with SERVED_WALLETS=tracked, of the tracked set only). A token is known
 * by its metadata or its swaps (as for candles).
 */
export function tokenFlowsRouter(deps: { flows: TokenFlowsRepository; directory: TokenDirectory; tokens: TokenPresence; served: ServedWallets }): Router {
  const router = Router()

  router.get('/tokens/:contract_address/flows', async (req, res) => {
    const { params, query } = parseRequest(getTokenFlows, req)
    const address = params.contract_address
    await deps.directory.fresh()
    if (deps.directory.get(address) === undefined && !(await deps.tokens.isKnownAddress(address))) {
      throw notFound(`No token with contract address ${address}`)
    }
    const window = { startMs: query.start_time, endMs: query.end_time }
    const flows = await deps.flows.flows(deps.directory.ref(address), [address], window, query.top, readOptionsOf(req), await deps.served.current())
    sendResult(res, flows)
  })

  return router
}
