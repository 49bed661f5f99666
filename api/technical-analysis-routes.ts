import { Router } from 'express'
import type { Redis } from '../shared/redis.js'
import { readTechnicalAnalysis, type TechnicalAnalysis } from '../shared/technical-analysis.js'
import type { Token } from '../shared/domain.js'
import { isAddress, parseAddress } from './address-params.js'
import { HttpError, notFound } from './http-error.js'
import { parseTechnicalAnalysisTarget } from './technical-analysis-params.js'
import type { OnDemandComputation, OnDemandOutcome } from './technical-analysis-on-demand.js'
import type { TokensRepository } from './tokens-repository.js'

export interface TechnicalAnalysisDeps {
  tokens: TokensRepository
  redis: Redis
  redisPrefix: string
  onDemand: OnDemandComputation
}

export const FETCH_ERROR_PREFIX = 'Error fetching technical analysis data: '

/** Section 2.6: the cached result without the engine's bookkeeping (candleTime, candleCount). */
function toResponseResult(cached: TechnicalAnalysis, token: Token | null) {
  const { candleTime: _candleTime, candleCount: _candleCount, ...result } = cached
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

  router.get('/technical-analysis', async (req, res) => {
    const target = parseTechnicalAnalysisTarget(req)
    const contractAddress = 'contractAddress' in target ? parseAddress(target.contractAddress, 'contract_address') : null
    try {
      let address: string
      if (contractAddress !== null) {
        address = contractAddress
      } else {
        const tokenId = (target as { tokenId: string }).tokenId
        const addresses = await deps.tokens.addressesForTokenId(tokenId, isAddress(tokenId))
        if (addresses.length === 0) throw notFound(`No token with id "${tokenId}"`)
        address = addresses[0]!
      }
      const read = () => readTechnicalAnalysis(deps.redis, deps.redisPrefix, address)
      const [cached, token] = await Promise.all([read(), deps.tokens.findByAddress(address)])
      let result = cached
      if (result === null) {
        if (token === null && !(await deps.tokens.isKnownAddress(address))) {
          throw notFound(`No token with contract address ${address}`)
        }
        const outcome = await deps.onDemand.compute(address)
        result = await read()
        if (result === null) {
          throw notFound(`No technical analysis is available yet for token ${address}: ${unavailableReason(outcome)}`)
        }
      }
      res.json({
        status: 'success',
        message: 'Technical analysis data fetched successfully',
        result: toResponseResult(result, token),
      })
    } catch (err) {
      if (err instanceof HttpError) throw err
      const details = err instanceof Error ? err.message : String(err)
      throw new HttpError(500, `${FETCH_ERROR_PREFIX}${details}`)
    }
  })

  return router
}
