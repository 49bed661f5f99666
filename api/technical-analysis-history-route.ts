import { Router } from 'express'
import { CANDLE_MS, closedCandles } from '../shared/candles/candles.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { indicatorHistory } from '../shared/candles/indicator-math/history.js'
import type { Tables } from '../shared/storage/tables.js'
import { isAddress } from './address-params.js'
import { cacheClosedSeries, type SeriesCachePolicy } from './cache-control.js'
import { INDICATOR_HISTORY_COLUMNS } from './csv-columns.js'
import { listTechnicalAnalysisHistory } from './contract/endpoints/technical-analysis.js'
import { parseRequest } from './contract/request-parsing.js'
import { sendListPage } from './csv-format.js'
import { notFound } from './http-error.js'
import { indicatorHistoryRow } from './indicator-history-row.js'
import { seriesWindow } from './series-window.js'
import { technicalAnalysisTarget } from './technical-analysis-params.js'
import { secondsHint, timeRangeOf } from './time-range.js'
import type { TokenDirectory } from './token-directory.js'
import type { TokenPresence } from './token-presence.js'
import type { CandleRefreshGate } from './candle-refresh-gate.js'

export interface TechnicalAnalysisHistoryDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  directory: TokenDirectory
  tokens: TokenPresence
  caching: SeriesCachePolicy
  refreshGate: CandleRefreshGate
}

/**
 * GET /technical-analysis/history: the indicators as they stood at each closed 4-hour
 * candle (whose start lies in [start_time, end_time], or the latest ones), computed from
 * the token's gap-filled closed candles with the engine's own math
 * (shared/candles/indicator-math) in one pass over the whole history: point i is what the
 * engine caches when candle i is the last closed one.
 */
export function technicalAnalysisHistoryRouter(deps: TechnicalAnalysisHistoryDeps): Router {
  const router = Router()

  router.get('/technical-analysis/history', async (req, res) => {
    const { query, body } = parseRequest(listTechnicalAnalysisHistory, req)
    const target = technicalAnalysisTarget(query, body)
    const range = timeRangeOf(query)
    const page = { limit: query.limit, offset: query.offset }
    const format = query.format
    let address: string
    if ('contractAddress' in target) {
      address = target.contractAddress
    } else {
      await deps.directory.fresh()
      const found = deps.directory.addressesForTokenId(target.tokenId, isAddress(target.tokenId))
      if (found.length === 0) throw notFound(`No token with id "${target.tokenId}"`)
      address = found[0]!
    }
    if (deps.directory.get(address) === undefined && !(await deps.tokens.isKnownAddress(address))) {
      throw notFound(`No token with contract address ${address}`)
    }
    const now = Date.now()
    const candles = await closedCandles(deps.clickhouse, deps.tables, address, now, CANDLE_MS, deps.refreshGate.refresh)
    const { from, to, total } = seriesWindow(candles, range, page)
    cacheClosedSeries(res, deps.caching, range, CANDLE_MS, now)
    await sendListPage(res, format, INDICATOR_HISTORY_COLUMNS, {
      rows: indicatorHistory(candles, from, to).map(indicatorHistoryRow),
      pagination: { ...page, total },
      message: secondsHint(range, total),
    })
  })

  return router
}
