import { Router } from 'express'
import { parseAddress } from './address-params.js'
import { sendPage, sendResult } from './envelope.js'
import { notFound } from './http-error.js'
import { parsePage } from './pagination.js'
import type { TokensRepository } from './tokens-repository.js'

export function tokensRouter(tokens: TokensRepository): Router {
  const router = Router()

  router.get('/tokens', async (req, res) => {
    const page = parsePage(req)
    const { tokens: result, total } = await tokens.list(page)
    sendPage(res, result, { ...page, total })
  })

  router.get('/tokens/:contract_address', async (req, res) => {
    const address = parseAddress(req.params.contract_address, 'contract_address')
    const token = await tokens.findByAddress(address)
    if (token === null) throw notFound(`No token with contract address ${address}`)
    sendResult(res, token)
  })

  return router
}
