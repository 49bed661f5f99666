import { Router } from 'express'
import { isAddress, parseAddress, parseTxHash } from './address-params.js'
import { sendPage, sendResult } from './envelope.js'
import { badRequest, notFound } from './http-error.js'
import { parsePage } from './pagination.js'
import { singleQueryValue } from './query-params.js'
import type { SwapFilter, SwapsRepository } from './swaps-repository.js'
import { parseTimeRange } from './time-range.js'
import type { TokensRepository } from './tokens-repository.js'

export function swapsRouter(swaps: SwapsRepository, tokens: TokensRepository): Router {
  const router = Router()

  router.get('/swap-transactions', async (req, res) => {
    const range = parseTimeRange(req)
    const page = parsePage(req)
    const filter: SwapFilter = { ...range }
    const wallet = singleQueryValue(req, 'address')
    if (wallet !== undefined) filter.walletAddress = parseAddress(wallet, 'address')
    const tokenId = singleQueryValue(req, 'token_id')
    if (tokenId !== undefined) {
      if (tokenId === '') throw badRequest('token_id must not be empty')
      // A filter: an id that names no token matches no swap (an empty page, not a 404).
      filter.tokenAddresses = await tokens.addressesForTokenId(tokenId, isAddress(tokenId))
    }
    const { swaps: result, total } = await swaps.list(filter, page)
    sendPage(res, result, { ...page, total })
  })

  router.get('/swap-transactions/:hash', async (req, res) => {
    const hash = parseTxHash(req.params.hash, 'hash')
    const swap = await swaps.findByHash(hash)
    if (swap === null) throw notFound(`No swap transaction with hash ${hash}`)
    sendResult(res, swap)
  })

  return router
}
