import { Router } from 'express'
import type { Redis } from '../shared/platform/redis.js'
import { parseTechnicalAnalysis, technicalAnalysisKey, type TechnicalAnalysis } from '../shared/candles/technical-analysis.js'
import type { Token } from '../shared/records/domain.js'
import { isAddress } from './address-params.js'
import { BatchedGets } from './batched-gets.js'
import { getTechnicalAnalysis } from './contract/endpoints/technical-analysis.js'
import { parseRequest } from './contract/request-parsing.js'
import { HttpError, notFound } from './http-error.js'
import { technicalAnalysisTarget } from './technical-analysis-params.js'
import type { OnDemandComputation, OnDemandOutcome } from './technical-analysis-on-demand.js'
import type { TokenDirectory } from './token-directory.js'
import type { TokenPresence } from './token-presence.js'

export interface TechnicalAnalysisDeps {
  /** Token metadata and ids, in memory. */
  directory: TokenDirectory
  /** Only for a token with no cached result: whether anything at all is known of it. */
  tokens: TokenPresence
  redis: Redis
  redisPrefix: string
  onDemand: OnDemandComputation
}

export const FETCH_ERROR_PREFIX = 'Error fetching technical analysis data: '

/**
 * Section 2.6's fields, and beside them which candles the values come from: `candleTime`
 * (ISO 8601 start of the last closed 4-hour candle used) and `candleCount` (how many), so a
 * reader can tell how fresh the cached values are.
 */
function toResponseResult(cached: TechnicalAnalysis, token: Token | null) {
  const result = { ...cached, candleTime: new Date(cached.candleTime).toISOString() }
  if (token === null) return result
  // The token's current metadata, so the response agrees with /tokens even when the
  // metadata arrived after the indicators were computed.
  return {
    ...result,
    token: { id: token.id, name: token.name, symbol: token.symbol, decimals: token.decimals, contractAddress: token.contract_address },
  }
}

function unavailableReason(outcome: OnDemandOutcome): string {
  switch (outcome.state) {
    case 'finished':
      return outcome.result.reason ?? 'the computation wrote no result'
    case 'failed':
      return `the computation failed: ${outcome.reason}`
    case 'timed-out':
      return `the computation did not finish within ${outcome.waitedMs} ms`
  }
}

export function technicalAnalysisRouter(deps: TechnicalAnalysisDeps): Router {
  const router = Router()
  // The cached results, read in MGETs for the requests that arrive together (batched-gets.ts).
  const gets = new BatchedGets(deps.redis)
  const readCached = async (address: string): Promise<TechnicalAnalysis | null> => {
    const raw = await gets.get(technicalAnalysisKey(deps.redisPrefix, address))
    return raw === null ? null : parseTechnicalAnalysis(raw)
  }

  router.get('/technical-analysis', async (req, res) => {
    const { query, body } = parseRequest(getTechnicalAnalysis, req)
    const target = technicalAnalysisTarget(query, body)
    const contractAddress = 'contractAddress' in target ? target.contractAddress : null
    try {
      // When the result is cached, the one round trip is the Redis read: the token's
      // metadata and ids are in memory.
      await deps.directory.fresh()
      let address: string
      if (contractAddress !== null) {
        address = contractAddress
      } else {
        const tokenId = (target as { tokenId: string }).tokenId
        const addresses = deps.directory.addressesForTokenId(tokenId, isAddress(tokenId))
        if (addresses.length === 0) throw notFound(`No token with id "${tokenId}"`)
        address = addresses[0]!
      }
      let result = await readCached(address)
      if (result === null) {
        if (deps.directory.get(address) === undefined && !(await deps.tokens.isKnownAddress(address))) {
          throw notFound(`No token with contract address ${address}`)
        }
        const outcome = await deps.onDemand.compute(address)
        result = await readCached(address)
        if (result === null) {
          throw notFound(`No technical analysis is available yet for token ${address}: ${unavailableReason(outcome)}`)
        }
      }
      res.json({
        status: 'success',
        message: 'Technical analysis data fetched successfully',
        // The metadata as it is now (it may have arrived during an on-demand computation).
        result: toResponseResult(result, deps.directory.get(address) ?? null),
      })
    } catch (err) {
      if (err instanceof HttpError) throw err
      // Section 7 fixes this route's error as a 500 with this prefix. A Redis outage in
      // the chain is answered as every route's is, a 503 (error-handling.ts).
      const details = err instanceof Error ? err.message : String(err)
      throw new HttpError(500, `${FETCH_ERROR_PREFIX}${details}`, { cause: err })
    }
  })

  return router
}
