import { Router } from 'express'
import { parseAddress } from './address-params.js'
import { sendResult } from './envelope.js'
import { badRequest, notFound } from './http-error.js'
import { singleQueryValue } from './query-params.js'
import { parseTimeRange } from './time-range.js'
import type { TokenDirectory } from './token-directory.js'
import type { TokenFlowsRepository } from './token-flows-repository.js'
import type { TokenPresence } from './token-presence.js'
import { readOptionsOf } from './versioned-results.js'

export const DEFAULT_TOP_WALLETS = 10
export const MAX_TOP_WALLETS = 100

/**
 * GET /tokens/:contract_address/flows?start_time&end_time[&top]: the smart-money net flow
 * of a token over a window (beyond the interface): what the tracked wallets bought and
 * sold, in token units and USD, how many did each, and the `top` wallets by net USD in
 * each direction. A token is known by its metadata or its swaps (as for candles).
 */
export function tokenFlowsRouter(deps: { flows: TokenFlowsRepository; directory: TokenDirectory; tokens: TokenPresence }): Router {
  const router = Router()

  router.get('/tokens/:contract_address/flows', async (req, res) => {
    const address = parseAddress(req.params.contract_address, 'contract_address')
    const window = parseTimeRange(req)
    const top = parseTop(singleQueryValue(req, 'top'))
    await deps.directory.fresh()
    if (deps.directory.get(address) === undefined && !(await deps.tokens.isKnownAddress(address))) {
      throw notFound(`No token with contract address ${address}`)
    }
    const flows = await deps.flows.flows(deps.directory.ref(address), [address], window, top, readOptionsOf(req))
    sendResult(res, flows)
  })

  return router
}

function parseTop(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TOP_WALLETS
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(value >= 1 && value <= MAX_TOP_WALLETS)) {
    throw badRequest(`top must be an integer from 1 to ${MAX_TOP_WALLETS} (got "${raw}")`)
  }
  return value
}
