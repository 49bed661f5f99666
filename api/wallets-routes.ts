import { Router } from 'express'
import { listWalletHoldings } from './contract/endpoints/wallets.js'
import { parseRequest } from './contract/request-parsing.js'
import { HOLDING_COLUMNS } from './csv-columns.js'
import { sendListPage } from './csv-format.js'
import type { HoldingsRepository } from './holdings-repository.js'
import type { TokenDirectory } from './token-directory.js'
import { roundValue } from './number-rounding.js'
import { readOptionsOf } from './versioned-results.js'
import { isServed, notServedHint, type ServedWallets } from './served-wallets.js'

/**
 * One wallet's view (beyond the interface). Its holdings: ordered as GET /holdings, with
 * `summary.total_value_usd` (the sum of the values known) and `summary.holdings_without_value`.
 * A wallet with no holdings is an empty page: any address may be a wallet.
 */
export function walletsRouter(holdings: HoldingsRepository, directory: TokenDirectory, servedWallets: ServedWallets): Router {
  const router = Router()

  router.get('/wallets/:address/holdings', async (req, res) => {
    const { params, query } = parseRequest(listWalletHoldings, req)
    const page = { limit: query.limit, offset: query.offset }
    await directory.fresh()
    const served = await servedWallets.current()
    const result = await holdings.listOfWallet(params.address, page, readOptionsOf(req), served)
    const message = isServed(served, params.address) ? undefined : notServedHint(params.address, 'holdings')
    const pagination = { ...page, total: result.total }
    const totalValueUsd = roundValue(result.totalValueUsd)
    if (query.format === 'csv') {
      res.setHeader('X-Total-Value-Usd', String(totalValueUsd))
      await sendListPage(res, query.format, HOLDING_COLUMNS, { rows: result.holdings, pagination, message })
      return
    }
    res.json({
      status: 'success',
      result: result.holdings,
      summary: { wallet_address: params.address, total_value_usd: totalValueUsd, holdings_without_value: result.withoutValue },
      pagination,
      ...(message === undefined ? {} : { message }),
    })
  })

  return router
}
