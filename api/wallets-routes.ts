import { Router } from 'express'
import { parseAddress } from './address-params.js'
import { HOLDING_COLUMNS } from './csv-columns.js'
import { parseListFormat, sendListPage } from './csv-format.js'
import type { HoldingsRepository } from './holdings-repository.js'
import { parsePage } from './pagination.js'
import type { TokenDirectory } from './token-directory.js'
import { readOptionsOf } from './versioned-results.js'

/**
 * One wallet's view (beyond the interface). Its holdings: ordered as GET /holdings, with
 * `summary.total_value_usd` (the sum of the values known) and `summary.holdings_without_value`.
 * A wallet with no holdings is an empty page: any address may be a wallet.
 */
export function walletsRouter(holdings: HoldingsRepository, directory: TokenDirectory): Router {
  const router = Router()

  router.get('/wallets/:address/holdings', async (req, res) => {
    const wallet = parseAddress(req.params.address, 'address')
    const page = parsePage(req)
    const format = parseListFormat(req)
    await directory.fresh()
    const result = await holdings.listOfWallet(wallet, page, readOptionsOf(req))
    const pagination = { ...page, total: result.total }
    if (format === 'csv') {
      res.setHeader('X-Total-Value-Usd', String(result.totalValueUsd))
      await sendListPage(res, format, HOLDING_COLUMNS, { rows: result.holdings, pagination })
      return
    }
    res.json({
      status: 'success',
      result: result.holdings,
      summary: { wallet_address: wallet, total_value_usd: result.totalValueUsd, holdings_without_value: result.withoutValue },
      pagination,
    })
  })

  return router
}
