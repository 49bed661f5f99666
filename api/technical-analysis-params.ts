import { addressParam } from './contract/parameters.js'
import { parseWith } from './contract/request-parsing.js'
import { badRequest } from './http-error.js'

export type TechnicalAnalysisTarget = { tokenId: string } | { contractAddress: string }

const NAMES = ['token_id', 'contract_address'] as const
type Name = (typeof NAMES)[number]

type TargetFields = { [K in Name]?: string | null | undefined }

const contractAddress = addressParam('contract_address')

function valueOf(query: TargetFields, body: TargetFields, name: Name): string | undefined {
  const fromQuery = query[name] ?? undefined
  const fromBody = body[name] ?? undefined
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw badRequest(`${name} is given in both the query string and the body, with different values`)
  }
  const value = fromQuery ?? fromBody
  return value === '' ? undefined : value
}

/**
 * Exactly one of token_id and contract_address (a valid address, returned in lower case),
 * from the query string or the JSON body as the endpoint parsed them (the interface leaves
 * the transport open, so both are accepted).
 */
export function technicalAnalysisTarget(query: TargetFields, body: TargetFields): TechnicalAnalysisTarget {
  const tokenId = valueOf(query, body, 'token_id')
  const address = valueOf(query, body, 'contract_address')
  if (tokenId !== undefined && address !== undefined) {
    throw badRequest('Give either token_id or contract_address, not both')
  }
  if (tokenId !== undefined) return { tokenId }
  if (address !== undefined) return { contractAddress: parseWith(contractAddress, address) }
  throw badRequest('token_id or contract_address is required')
}
