import { Router } from 'express'
import { getHolding, listHoldings, listTokenHoldings } from './contract/endpoints/holdings.js'
import { parseRequest } from './contract/request-parsing.js'
import { HOLDING_COLUMNS } from './csv-columns.js'
import { sendListPage } from './csv-format.js'
import { sendResult } from './envelope.js'
import { notFound } from './http-error.js'
import type { HoldingsRepository } from './holdings-repository.js'
import { readOptionsOf } from './versioned-results.js'
import type { TokenDirectory } from './token-directory.js'
import type { ServedWallets } from './served-wallets.js'

export function holdingsRouter(holdings: HoldingsRepository, directory: TokenDirectory, servedWallets: ServedWallets): Router {
  const router = Router()

  router.get('/holdings', async (req, res) => {
    const { limit, offset, format } = parseRequest(listHoldings, req).query
    const page = { limit, offset }
    await directory.fresh()
    const { holdings: result, total } = await holdings.list(page, undefined, readOptionsOf(req), await servedWallets.current())
    await sendListPage(res, format, HOLDING_COLUMNS, { rows: result, pagination: { ...page, total } })
  })

  router.get('/holdings/token/:contract_address', async (req, res) => {
    const { params, query } = parseRequest(listTokenHoldings, req)
    const address = params.contract_address
    const page = { limit: query.limit, offset: query.offset }
    const format = query.format
    await directory.fresh()
    const { holdings: result, total } = await holdings.list(page, address, readOptionsOf(req), await servedWallets.current())
    // A token is known by its metadata or by holdings of it (metadata may come later).
    if (total === 0 && directory.get(address) === undefined) {
      throw notFound(`No token with contract address ${address}`)
    }
    await sendListPage(res, format, HOLDING_COLUMNS, { rows: result, pagination: { ...page, total } })
  })

  router.get('/holdings/:id', async (req, res) => {
    const key = parseRequest(getHolding, req).params.id
    await directory.fresh()
    const served = await servedWallets.current()
    const holding = await holdings.find(key.walletAddress, key.contractAddress, served)
    if (holding === null) throw notFound(`No holding with id ${key.walletAddress}-${key.contractAddress}${served === null ? '' : ' of a tracked wallet'}`)
    sendResult(res, holding)
  })

  return router
}
