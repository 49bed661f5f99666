import { z } from 'zod'
import { CANDLE_INTERVALS, DEFAULT_CANDLE_INTERVAL } from '../../candle-params.js'
import { defineEndpoint } from '../endpoint.js'
import { pageEnvelope, resultEnvelope } from '../envelopes.js'
import {
  addressParam,
  checkTimeRange,
  END_TIME_DESCRIPTION,
  flagParam,
  MAX_SERIES_LIMIT,
  optionalTimeParam,
  pageQueryShape,
  START_TIME_DESCRIPTION,
  strictQuery,
} from '../parameters.js'
import { candleSchema, tokenSchema } from '../resources.js'

const contractAddressPath = z.object({ contract_address: addressParam('contract_address') })

export const listTokens = defineEndpoint({
  path: '/tokens',
  operationId: 'listTokens',
  tag: 'Tokens',
  summary: 'Tokens with metadata, by symbol then contract address',
  query: strictQuery(pageQueryShape()),
  success: { description: 'A page of tokens', schema: pageEnvelope(tokenSchema), csv: true },
  errors: { 400: 'A malformed or unknown parameter' },
})

export const getToken = defineEndpoint({
  path: '/tokens/:contract_address',
  operationId: 'getToken',
  tag: 'Tokens',
  summary: 'One token by contract address (any case)',
  params: contractAddressPath,
  query: strictQuery({}),
  success: { description: 'The token', schema: resultEnvelope(tokenSchema) },
  errors: { 400: 'A malformed address or an unknown parameter', 404: 'No token with this contract address (or its metadata has not arrived)' },
})

const intervalNames = Object.keys(CANDLE_INTERVALS) as [keyof typeof CANDLE_INTERVALS, ...(keyof typeof CANDLE_INTERVALS)[]]

export const intervalParam = z
  .enum(intervalNames)
  .optional()
  .default(DEFAULT_CANDLE_INTERVAL)
  .meta({ description: 'Candle length' })

export const listCandles = defineEndpoint({
  path: '/tokens/:contract_address/candles',
  operationId: 'listCandles',
  tag: 'Tokens',
  summary: "A token's closed candles, oldest first, gaps filled",
  description:
    'Those starting in [start_time, end_time] (both or neither), or without a range the latest `limit` before the `offset` newest.',
  params: contractAddressPath,
  query: strictQuery({
    interval: intervalParam,
    start_time: optionalTimeParam('start_time').meta({ description: START_TIME_DESCRIPTION }),
    end_time: optionalTimeParam('end_time').meta({ description: END_TIME_DESCRIPTION }),
    in_progress: flagParam('in_progress').meta({
      description: 'true: the candle of the interval in progress too, as it stands (newest, never cached); false (default): closed candles only.',
    }),
    ...pageQueryShape(MAX_SERIES_LIMIT),
  }).superRefine(checkTimeRange),
  success: { description: 'A page of candles', schema: pageEnvelope(candleSchema), csv: true },
  errors: { 400: 'A malformed or unknown parameter', 404: 'No token with this contract address' },
})
