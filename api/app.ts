import express, { type Express } from 'express'
import { embeddedWritesEnded, type ClickHouseClient } from '../shared/storage/clickhouse.js'
import type { Config } from '../shared/platform/config.js'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import type { Logger } from '../shared/platform/logger.js'
import type { Redis } from '../shared/platform/redis.js'
import type { Tables } from '../shared/storage/tables.js'
import { revalidateAlways, type SeriesCachePolicy } from './cache-control.js'
import { routeTable } from './route-table.js'
import { candlesRouter } from './candles-route.js'
import { CandleRefreshGate } from './candle-refresh-gate.js'
import { errorResponder, unknownRoute } from './error-handling.js'
import { FeedWatch } from './feed-watch.js'
import { HoldingsRepository } from './holdings-repository.js'
import { holdingsRouter } from './holdings-routes.js'
import { SwapHourCounts } from './swap-hour-counts.js'
import { SwapsRepository } from './swaps-repository.js'
import { swapsRouter } from './swaps-routes.js'
import type { OnDemandComputation } from './technical-analysis-on-demand.js'
import { technicalAnalysisHistoryRouter } from './technical-analysis-history-route.js'
import { technicalAnalysisRouter } from './technical-analysis-routes.js'
import type { TokenDirectory } from './token-directory.js'
import { TokenPresence } from './token-presence.js'
import { tokensRouter } from './tokens-routes.js'
import { VersionedResults } from './versioned-results.js'
import { walletsRouter } from './wallets-routes.js'
import { SmartMoneyRepository } from './smart-money-repository.js'
import { smartMoneyRouter } from './smart-money-routes.js'
import { ServedWallets } from './served-wallets.js'
import { TokenFlowsRepository } from './token-flows-repository.js'
import { tokenFlowsRouter } from './token-flows-route.js'
import { TokenFlowsRefreshGate } from './token-flows-refresh-gate.js'
import { ScreenerRepository } from './screener/screener-repository.js'
import { screenerRouter } from './screener/screener-route.js'
import { screenerTrackedSet } from './screener/screener-tracked-set.js'
import { SwapStreamHub } from './swap-stream/swap-stream-hub.js'
import { swapStreamRouter } from './swap-stream/swap-stream-route.js'
import { trackedAddresses } from './swap-stream/stream-tracked-wallets.js'
import { alertsRouter } from './alerts-routes.js'
import { AlertFiringsStore } from '../shared/alerts/alert-firings-store.js'
import { AlertStreamHub } from './alert-stream/alert-stream-hub.js'
import { alertStreamRouter } from './alert-stream/alert-stream-route.js'

export interface ApiDeps {
  clickhouse: ClickHouseClient
  tables: Tables
  logger: Logger
  /** A request/response connection (bounded retries), for the cached indicator results. */
  redis: Redis
  redisPrefix: string
  onDemand: OnDemandComputation
  /** Every token's metadata in memory, kept current by ingestion's change events. */
  tokenDirectory: TokenDirectory
  /** How long a series of closed candles may be cached (cache-control.ts). */
  seriesCaching: SeriesCachePolicy
  /** The tracked-wallets file and the selection rules (GET /wallets, /wallets/:address, /smart-money/rules). */
  smartMoney: Pick<Config['smartMoney'], 'trackedWalletsFile' | 'rules' | 'servedWallets'>
  /** GET /stream/swaps's and /stream/alerts's heartbeat and slow-client bound; not offered on a cluster, whose positions are per shard. */
  streams: Config['swapStream'] & { offered: boolean }
  /** Aborted when the server shuts down: the live streams end. */
  closing: AbortSignal
}

/** The read API: every endpoint of section 4, JSON errors everywhere else. */
export function createApp(deps: ApiDeps): Express {
  const tokens = new TokenPresence(deps.clickhouse, deps.tables)
  const directory = deps.tokenDirectory
  const feed = new FeedWatch(deps.clickhouse, deps.tables)
  const holdings = new HoldingsRepository(deps.clickhouse, deps.tables, directory, new VersionedResults(feed, ['holding']))
  const hourCounts = new SwapHourCounts(deps.clickhouse, deps.tables, feed)
  const keptSwaps = new VersionedResults(feed, ['swap'])
  const swaps = new SwapsRepository(deps.clickhouse, deps.tables, hourCounts, directory, keptSwaps)
  const flowsGate = new TokenFlowsRefreshGate(deps.clickhouse, deps.tables)
  const flows = new TokenFlowsRepository(deps.clickhouse, deps.tables, keptSwaps, flowsGate)
  const refreshGate = new CandleRefreshGate(feed)
  const servedWallets = new ServedWallets(deps.clickhouse, deps.tables, deps.smartMoney.servedWallets)
  const trackedSet = screenerTrackedSet(new SmartMoneyRepository(deps.clickhouse, deps.tables), new TrackedWalletsFile(deps.smartMoney.trackedWalletsFile), deps.smartMoney.rules)
  const streamSettings = { heartbeatMs: deps.streams.heartbeatMs, maxPendingBytes: deps.streams.maxPendingBytes, logger: deps.logger }
  const alertFirings = new AlertFiringsStore(deps.clickhouse, deps.tables)
  const swapStream = deps.streams.offered
    ? new SwapStreamHub({
        clickhouse: deps.clickhouse,
        tables: deps.tables,
        feed,
        swaps,
        directory,
        served: servedWallets,
        tracked: trackedAddresses(trackedSet),
        ...streamSettings,
      })
    : null
  const alertStream = deps.streams.offered
    ? new AlertStreamHub({ firings: alertFirings, writesEnded: () => embeddedWritesEnded(deps.clickhouse), ...streamSettings })
    : null
  deps.closing.addEventListener(
    'abort',
    () => {
      swapStream?.close()
      alertStream?.close()
    },
    { once: true },
  )

  const app = express()
  // The server runs this app's router in its own app (root-app.ts), whose settings apply:
  // these are the same, for the app on its own.
  app.disable('x-powered-by')
  // Weak: the same tag whether the body goes out gzip, br or as is (compression in root-app.ts).
  app.set('etag', 'weak')
  app.use(revalidateAlways)
  // GET /technical-analysis also takes its parameters as a JSON body.
  app.use(express.json({ limit: '16kb' }))
  app.use(
    routeTable(
      tokensRouter(directory),
      candlesRouter({ clickhouse: deps.clickhouse, tables: deps.tables, tokens, directory, caching: deps.seriesCaching, refreshGate }),
      holdingsRouter(holdings, directory, servedWallets),
      swapsRouter(swaps, directory, servedWallets),
      swapStreamRouter(swapStream),
      walletsRouter(holdings, directory, servedWallets),
      smartMoneyRouter({
        repository: new SmartMoneyRepository(deps.clickhouse, deps.tables),
        trackedWallets: new TrackedWalletsFile(deps.smartMoney.trackedWalletsFile),
        rules: deps.smartMoney.rules,
      }),
      tokenFlowsRouter({ flows, directory, tokens, served: servedWallets }),
      screenerRouter({
        screener: new ScreenerRepository(deps.clickhouse, deps.tables, new VersionedResults(feed, ['swap']), flowsGate),
        directory,
        tracked: trackedSet,
      }),
      technicalAnalysisHistoryRouter({ clickhouse: deps.clickhouse, tables: deps.tables, directory, tokens, caching: deps.seriesCaching, refreshGate }),
      technicalAnalysisRouter({ directory, tokens, redis: deps.redis, redisPrefix: deps.redisPrefix, onDemand: deps.onDemand }),
      alertsRouter(alertFirings),
      alertStreamRouter(alertStream),
    ),
  )
  app.use(unknownRoute)
  app.use(errorResponder(deps.logger))
  return app
}
