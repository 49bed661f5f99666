import { Router, type Request } from 'express'
import { isAddress, parseAddress, parseTxHash } from './address-params.js'
import { SWAP_COLUMNS } from './csv-columns.js'
import { parseListFormat, sendListPage } from './csv-format.js'
import { sendResult } from './envelope.js'
import { badRequest, notFound } from './http-error.js'
import { parsePage } from './pagination.js'
import { singleQueryValue } from './query-params.js'
import { decodeSwapCursor, encodeSwapCursor, queryFingerprint } from './swap-cursor.js'
import type { PageStart, SwapFilter, SwapsRepository } from './swaps-repository.js'
import { parseTimeRange } from './time-range.js'
import type { TokenDirectory } from './token-directory.js'
import { readOptionsOf } from './versioned-results.js'

export function swapsRouter(swaps: SwapsRepository, directory: TokenDirectory): Router {
  const router = Router()

  router.get('/swap-transactions', async (req, res) => {
    const range = parseTimeRange(req)
    const page = parsePage(req)
    const format = parseListFormat(req)
    await directory.fresh() // token changes announced before this request are in its rows
    const filter: SwapFilter = { ...range }
    const wallet = singleQueryValue(req, 'address')
    if (wallet !== undefined) filter.walletAddress = parseAddress(wallet, 'address')
    const tokenId = singleQueryValue(req, 'token_id')
    if (tokenId !== undefined) {
      if (tokenId === '') throw badRequest('token_id must not be empty')
      // A filter: an id that names no token matches no swap (an empty page, not a 404).
      filter.tokenAddresses = directory.addressesForTokenId(tokenId, isAddress(tokenId))
    }
    const fingerprint = queryFingerprint([range.startMs, range.endMs, filter.walletAddress, tokenId])
    const start = pageStart(req, page.offset, fingerprint)
    const result = await swaps.list(filter, page, start, readOptionsOf(req))
    const next = result.next === null ? null : encodeSwapCursor(result.next, fingerprint)
    await sendListPage(res, format, SWAP_COLUMNS, {
      rows: result.swaps,
      pagination: { limit: page.limit, offset: result.offset, total: result.total },
      nextCursor: next,
    })
  })

  router.get('/swap-transactions/:hash', async (req, res) => {
    const hash = parseTxHash(req.params.hash, 'hash')
    await directory.fresh()
    const swap = await swaps.findByHash(hash, readOptionsOf(req))
    if (swap === null) throw notFound(`No swap transaction with hash ${hash}`)
    sendResult(res, swap)
  })

  return router
}

/** `cursor` (keyset, from pagination.next_cursor) or `offset`, never both. */
function pageStart(req: Request, offset: number, fingerprint: string): PageStart {
  const cursor = singleQueryValue(req, 'cursor')
  if (cursor === undefined) return { offset }
  if (singleQueryValue(req, 'offset') !== undefined) throw badRequest('give either cursor or offset, not both')
  if (cursor === '') throw badRequest('cursor must not be empty')
  return { cursor: decodeSwapCursor(cursor, fingerprint) }
}
