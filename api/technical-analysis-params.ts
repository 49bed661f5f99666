import type { Request } from 'express'
import { badRequest } from './http-error.js'
import { singleQueryValue } from './query-params.js'

export type TechnicalAnalysisTarget = { tokenId: string } | { contractAddress: string }

const NAMES = ['token_id', 'contract_address'] as const
type Name = (typeof NAMES)[number]

function bodyObject(req: Request): Record<string, unknown> {
  const body: unknown = req.body
  if (body === undefined || body === null) return {}
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object with token_id or contract_address')
  }
  return body as Record<string, unknown>
}

function valueOf(req: Request, body: Record<string, unknown>, name: Name): string | undefined {
  const fromQuery = singleQueryValue(req, name)
  const fromBody = body[name]
  if (fromBody !== undefined && fromBody !== null && typeof fromBody !== 'string') {
    throw badRequest(`${name} in the request body must be a string`)
  }
  const bodyValue = fromBody ?? undefined
  if (fromQuery !== undefined && bodyValue !== undefined && fromQuery !== bodyValue) {
    throw badRequest(`${name} is given in both the query string and the body, with different values`)
  }
  const value = fromQuery ?? bodyValue
  return value === '' ? undefined : value
}

/**
 * Exactly one of token_id and contract_address, from the query string or a JSON body
 * (the interface leaves the transport open, so both are accepted).
 */
export function parseTechnicalAnalysisTarget(req: Request): TechnicalAnalysisTarget {
  const body = bodyObject(req)
  const tokenId = valueOf(req, body, 'token_id')
  const contractAddress = valueOf(req, body, 'contract_address')
  if (tokenId !== undefined && contractAddress !== undefined) {
    throw badRequest('Give either token_id or contract_address, not both')
  }
  if (tokenId !== undefined) return { tokenId }
  if (contractAddress !== undefined) return { contractAddress }
  throw badRequest('token_id or contract_address is required')
}
