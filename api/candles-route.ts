import { Router } from 'express'
import { closedCandles } from '../shared/candles/candles.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Tables } from '../shared/storage/tables.js'
import { CANDLE_INTERVALS } from './candle-params.js'
import { roundCandle } from './candle-rounding.js'
import { cacheClosedSeries, type SeriesCachePolicy } from './cache-control.js'
import { CANDLE_COLUMNS } from './csv-columns.js'
import { listCandles } from './contract/endpoints/tokens.js'
import { parseRequest } from './contract/request-parsing.js'
import { sendListPage } from './csv-format.js'
import { notFound } from './http-error.js'
import { seriesWindow } from './series-window.js'
import { secondsHint, timeRangeOf } from './time-range.js'
import type { TokenPresence } from './token-presence.js'
import type { CandleRefreshGate } from './candle-refresh-gate.js'
import type { TokenDirectory } from './token-directory.js'

export interface CandlesDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  tokens: TokenPresence
  /** Tokens with metadata, in memory: most addresses are known without a query. */
  directory: Pick<TokenDirectory, 'get'>
  caching: SeriesCachePolicy
  refreshGate: CandleRefreshGate
}

/**
 * GET /tokens/:contract_address/candles: the token's closed candles of `interval` (1h,
 * 4h by default, 1d), with `in_progress` the one in progress too, aggregated in ClickHouse from the stored one-hour candles, gaps
 * filled, oldest first, prices and volume to 12 significant digits: those starting in
 * [start_time, end_time], or the latest ones (see seriesWindow).
 */
export function candlesRouter(deps: CandlesDeps): Router {
  const router = Router()

  router.get('/tokens/:contract_address/candles', async (req, res) => {
    const { params, query } = parseRequest(listCandles, req)
    const address = params.contract_address
    const interval = { name: query.interval, ms: CANDLE_INTERVALS[query.interval] }
    const range = timeRangeOf(query)
    const page = { limit: query.limit, offset: query.offset }
    const format = query.format
    if (deps.directory.get(address) === undefined && !(await deps.tokens.isKnownAddress(address))) {
      throw notFound(`No token with contract address ${address}`)
    }
    const now = Date.now()
    // The interval in progress is closed an interval from now: as of now, it holds what is stored so far.
    const upTo = query.in_progress ? now + interval.ms : now
    const candles = await closedCandles(deps.clickhouse, deps.tables, address, upTo, interval.ms, deps.refreshGate.refresh)
    const { from, to, total } = seriesWindow(candles, range, page)
    cacheClosedSeries(res, deps.caching, range, interval.ms, now)
    await sendListPage(res, format, CANDLE_COLUMNS, { rows: candles.slice(from, to).map(roundCandle), pagination: { ...page, total }, message: secondsHint(range, total) })
  })

  return router
}
