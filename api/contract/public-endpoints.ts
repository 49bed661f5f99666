import type { Endpoint } from './endpoint.js'
import { listAlerts } from './endpoints/alerts.js'
import { streamAlerts } from '../alert-stream/alert-stream-endpoint.js'
import { getHolding, listHoldings, listTokenHoldings } from './endpoints/holdings.js'
import { health, metrics, ready } from './endpoints/operator.js'
import { getSwap, listSwaps, listWalletSwaps } from './endpoints/swaps.js'
import { getTechnicalAnalysis, listTechnicalAnalysisHistory } from './endpoints/technical-analysis.js'
import { getToken, listCandles, listTokens } from './endpoints/tokens.js'
import { getTokenFlows, listWalletHoldings } from './endpoints/wallets.js'
import { getSmartMoneyRules, getWalletProfile, listTrackedWallets } from './endpoints/smart-money.js'
import { streamSwaps } from '../swap-stream/stream-endpoint.js'
import { listSmartMoneyTokens } from '../screener/screener-endpoint.js'

/** Every public operation, in the order of the document. (Operator tools under /admin are not public.) */
export const PUBLIC_ENDPOINTS: readonly Endpoint[] = [
  listTokens,
  getToken,
  listCandles,
  getTokenFlows,
  listHoldings,
  listTokenHoldings,
  getHolding,
  listSwaps,
  getSwap,
  streamSwaps,
  listWalletHoldings,
  listWalletSwaps,
  listTrackedWallets,
  getWalletProfile,
  getSmartMoneyRules,
  listSmartMoneyTokens,
  getTechnicalAnalysis,
  listTechnicalAnalysisHistory,
  listAlerts,
  streamAlerts,
  health,
  ready,
  metrics,
]
