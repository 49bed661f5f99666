import { Router } from 'express'
import { parseHoldingId } from '../shared/ids.js'
import { parseAddress } from './address-params.js'
import { HOLDING_COLUMNS } from './csv-columns.js'
import { parseListFormat, sendListPage } from './csv-format.js'
import { sendResult } from './envelope.js'
import { badRequest, notFound } from './http-error.js'
import type { HoldingsRepository } from './holdings-repository.js'
import { parsePage } from './pagination.js'
import { readOptionsOf } from './versioned-results.js'
import type { TokenDirectory } from './token-directory.js'

export function holdingsRouter(holdings: HoldingsRepository, directory: TokenDirectory): Router {
  const router = Router()

  router.get('/holdings', async (req, res) => {
    const page = parsePage(req)
    const format = parseListFormat(req)
    await directory.fresh()
    const { holdings: result, total } = await holdings.list(page, undefined, readOptionsOf(req))
    await sendListPage(res, format, HOLDING_COLUMNS, { rows: result, pagination: { ...page, total } })
  })

  router.get('/holdings/token/:contract_address', async (req, res) => {
    const address = parseAddress(req.params.contract_address, 'contract_address')
    const page = parsePage(req)
    const format = parseListFormat(req)
    await directory.fresh()
    const { holdings: result, total } = await holdings.list(page, address, readOptionsOf(req))
    // A token is known by its metadata or by holdings of it (metadata may come later).
    if (total === 0 && directory.get(address) === undefined) {
      throw notFound(`No token with contract address ${address}`)
    }
    await sendListPage(res, format, HOLDING_COLUMNS, { rows: result, pagination: { ...page, total } })
  })

  router.get('/holdings/:id', async (req, res) => {
    const id = req.params.id
    const key = parseHoldingId(id)
    if (key === null) {
      throw badRequest(`id must be a holding id: "<wallet address>-<token contract address>" (got "${id}")`)
    }
    await directory.fresh()
    const holding = await holdings.find(key.walletAddress, key.contractAddress)
    if (holding === null) throw notFound(`No holding with id ${key.walletAddress}-${key.contractAddress}`)
    sendResult(res, holding)
  })

  return router
}
