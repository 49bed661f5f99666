import { Router } from 'express'
import { parseRequest } from './contract/request-parsing.js'
import { getToken, listTokens } from './contract/endpoints/tokens.js'
import { TOKEN_COLUMNS } from './csv-columns.js'
import { sendListPage } from './csv-format.js'
import { sendResult } from './envelope.js'
import { notFound } from './http-error.js'
import type { TokenDirectory } from './token-directory.js'

/** Tokens come from the in-memory directory: no ClickHouse round trip. */
export function tokensRouter(directory: TokenDirectory): Router {
  const router = Router()

  router.get('/tokens', async (req, res) => {
    const { limit, offset, format } = parseRequest(listTokens, req).query
    const page = { limit, offset }
    await directory.fresh()
    const { tokens: result, total } = directory.list(page)
    await sendListPage(res, format, TOKEN_COLUMNS, { rows: result, pagination: { ...page, total } })
  })

  router.get('/tokens/:contract_address', async (req, res) => {
    const address = parseRequest(getToken, req).params.contract_address
    await directory.fresh()
    const token = directory.get(address)
    if (token === undefined) throw notFound(`No token with contract address ${address}`)
    sendResult(res, token)
  })

  return router
}
