import { Router } from 'express'
import { closedCandles } from '../shared/candles.js'
import type { ClickHouseClient } from '../shared/clickhouse.js'
import type { Tables } from '../shared/tables.js'
import { parseAddress } from './address-params.js'
import { sendPage } from './envelope.js'
import { notFound } from './http-error.js'
import { parsePage } from './pagination.js'
import { parseTimeRange } from './time-range.js'
import type { TokenPresence } from './token-presence.js'

export interface CandlesDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  tokens: TokenPresence
}

/**
 * GET /tokens/:contract_address/candles: the token's closed 4-hour candles whose start
 * `time` (ms, UTC-aligned) lies in [start_time, end_time], oldest first, gaps filled:
 * the series the indicators are computed from.
 */
export function candlesRouter(deps: CandlesDeps): Router {
  const router = Router()

  router.get('/tokens/:contract_address/candles', async (req, res) => {
    const address = parseAddress(req.params.contract_address, 'contract_address')
    const range = parseTimeRange(req)
    const page = parsePage(req)
    if (!(await deps.tokens.isKnownAddress(address))) throw notFound(`No token with contract address ${address}`)
    const candles = await closedCandles(deps.clickhouse, deps.tables, address, Date.now())
    const inRange = candles.filter((c) => c.time >= range.startMs && c.time <= range.endMs)
    sendPage(res, inRange.slice(page.offset, page.offset + page.limit), { ...page, total: inRange.length })
  })

  return router
}
