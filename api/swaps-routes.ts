import { Router, type Request, type Response } from 'express'
import { isAddress } from './address-params.js'
import { getSwap, listSwaps, listWalletSwaps } from './contract/endpoints/swaps.js'
import { parseRequest, type ParsedRequest } from './contract/request-parsing.js'
import { SWAP_COLUMNS } from './csv-columns.js'
import { sendListPage } from './csv-format.js'
import { sendResult } from './envelope.js'
import { notFound } from './http-error.js'
import { decodeSwapCursor, encodeSwapCursor, queryFingerprint } from './swap-cursor.js'
import type { PageStart, SwapFilter, SwapsRepository } from './swaps-repository.js'
import { secondsHint } from './time-range.js'
import type { TokenDirectory } from './token-directory.js'
import { readOptionsOf } from './versioned-results.js'
import { isServed, notServedHint, type ServedWallets } from './served-wallets.js'

type SwapListQuery = ParsedRequest<typeof listWalletSwaps>['query']

export function swapsRouter(swaps: SwapsRepository, directory: TokenDirectory, servedWallets: ServedWallets): Router {
  const router = Router()

  /** A page of swaps in a range, by offset or cursor, optionally of one wallet and/or token. */
  async function sendSwapPage(req: Request, res: Response, query: SwapListQuery, walletAddress: string | undefined): Promise<void> {
    const range = { startMs: query.start_time, endMs: query.end_time }
    const page = { limit: query.limit, offset: query.offset ?? 0 }
    await directory.fresh() // token changes announced before this request are in its rows
    const filter: SwapFilter = { ...range }
    if (walletAddress !== undefined) filter.walletAddress = walletAddress
    const tokenId = query.token_id
    // A filter: an id that names no token matches no swap (an empty page, not a 404).
    if (tokenId !== undefined) filter.tokenAddresses = directory.addressesForTokenId(tokenId, isAddress(tokenId))
    const fingerprint = queryFingerprint([range.startMs, range.endMs, filter.walletAddress, tokenId])
    // `cursor` (keyset, from pagination.next_cursor) or `offset`: the contract allows one.
    const start: PageStart = query.cursor === undefined ? { offset: page.offset } : { cursor: decodeSwapCursor(query.cursor, fingerprint) }
    const served = await servedWallets.current()
    const result = await swaps.list(filter, page, start, readOptionsOf(req), served)
    const next = result.next === null ? null : encodeSwapCursor(result.next, fingerprint)
    await sendListPage(res, query.format, SWAP_COLUMNS, {
      rows: result.swaps,
      pagination: { limit: page.limit, offset: result.offset, total: result.total },
      nextCursor: next,
      message: walletAddress !== undefined && !isServed(served, walletAddress) ? notServedHint(walletAddress, 'swaps') : secondsHint(range, result.total),
    })
  }

  router.get('/swap-transactions', async (req, res) => {
    const query = parseRequest(listSwaps, req).query
    await sendSwapPage(req, res, query, query.address)
  })

  // The same list under the wallet's path (a cursor is interchangeable with ?address=).
  router.get('/wallets/:address/swaps', async (req, res) => {
    const { params, query } = parseRequest(listWalletSwaps, req)
    await sendSwapPage(req, res, query, params.address)
  })

  router.get('/swap-transactions/:hash', async (req, res) => {
    const hash = parseRequest(getSwap, req).params.hash
    await directory.fresh()
    const served = await servedWallets.current()
    const swap = await swaps.findByHash(hash, readOptionsOf(req), served)
    if (swap === null) throw notFound(`No swap transaction with hash ${hash}${served === null ? '' : ' by a tracked wallet'}`)
    sendResult(res, swap)
  })

  return router
}
