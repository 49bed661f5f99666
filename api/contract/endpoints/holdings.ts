import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { pageEnvelope, resultEnvelope } from '../envelopes.js'
import { addressParam, holdingIdParam, pageQueryShape, strictQuery } from '../parameters.js'
import { holdingSchema } from '../resources.js'

export const listHoldings = defineEndpoint({
  path: '/holdings',
  operationId: 'listHoldings',
  tag: 'Holdings',
  summary: 'Holdings of the tracked wallets, largest value_usd first (unknown last), then id',
  query: strictQuery(pageQueryShape()),
  success: { description: 'A page of holdings', schema: pageEnvelope(holdingSchema), csv: true },
  errors: { 400: 'A malformed or unknown parameter' },
})

export const listTokenHoldings = defineEndpoint({
  path: '/holdings/token/:contract_address',
  operationId: 'listTokenHoldings',
  tag: 'Holdings',
  summary: 'The holdings of one token, ordered as GET /holdings',
  params: z.object({ contract_address: addressParam('contract_address') }),
  query: strictQuery(pageQueryShape()),
  success: { description: 'A page of holdings (empty for a known token nobody holds)', schema: pageEnvelope(holdingSchema), csv: true },
  errors: { 400: 'A malformed or unknown parameter', 404: 'The token has neither metadata nor holdings' },
})

export const getHolding = defineEndpoint({
  path: '/holdings/:id',
  operationId: 'getHolding',
  tag: 'Holdings',
  summary: 'One holding by its id',
  params: z.object({ id: holdingIdParam }),
  query: strictQuery({}),
  success: { description: 'The holding', schema: resultEnvelope(holdingSchema) },
  errors: { 400: 'A malformed id or an unknown parameter', 404: 'No holding with this id' },
})
