import { z } from 'zod'
import { ADDRESS_PATTERN } from '../../../shared/platform/hex-patterns.js'
import { defineEndpoint } from '../endpoint.js'
import { pageEnvelope, resultEnvelope } from '../envelopes.js'
import {
  checkTimeRange,
  END_TIME_DESCRIPTION,
  MAX_SERIES_LIMIT,
  optionalTimeParam,
  pageQueryShape,
  singleValue,
  START_TIME_DESCRIPTION,
  strictQuery,
} from '../parameters.js'
import { indicatorPointSchema, technicalAnalysisResultSchema } from '../resources.js'

/** Which token: exactly one of these, in the query string or in a JSON body (see technical-analysis-params.ts). */
const targetQueryShape = {
  token_id: singleValue('token_id').optional().meta({ description: 'The token id (exactly one of token_id and contract_address)' }),
  contract_address: singleValue('contract_address')
    .optional()
    .meta({ description: 'The contract address, any case (exactly one of token_id and contract_address)', pattern: ADDRESS_PATTERN.source }),
}

const BODY_FIELDS = ['token_id', 'contract_address'] as const

function bodyValue(name: string) {
  return z.string({ error: `${name} in the request body must be a string` }).nullable().optional()
}

/** GET with `Content-Type: application/json`: the same two parameters as a JSON object. */
export const technicalAnalysisBody = z.preprocess(
  (body) => body ?? {},
  z.strictObject(
    { token_id: bodyValue('token_id'), contract_address: bodyValue('contract_address') },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `Unknown field ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} in the request body: it accepts ${BODY_FIELDS.join(', ')}`
          : issue.code === 'invalid_type'
            ? 'The request body must be a JSON object with token_id or contract_address'
            : undefined,
    },
  ),
)

export const getTechnicalAnalysis = defineEndpoint({
  path: '/technical-analysis',
  operationId: 'getTechnicalAnalysis',
  tag: 'Technical analysis',
  summary: "A token's indicators on 4-hour candles (cached; computed on demand when missing)",
  description:
    'Exactly one of token_id or contract_address, in the query string or in a JSON body (GET with Content-Type: application/json). ' +
    'When a known token has no cached result, waits up to TA_ON_DEMAND_WAIT_MS for the engine to compute it.',
  query: strictQuery(targetQueryShape),
  body: technicalAnalysisBody,
  success: {
    description: 'The indicators, with message "Technical analysis data fetched successfully"',
    schema: resultEnvelope(technicalAnalysisResultSchema).extend({ message: z.literal('Technical analysis data fetched successfully') }),
  },
  errors: {
    400: 'Neither or both of token_id and contract_address, a malformed value or an unknown parameter',
    404: 'An unknown token, or no result even after the on-demand wait (the message says why)',
    500: 'Reading the result failed: "Error fetching technical analysis data: <details>"',
    503: 'Redis is unreachable: "service unavailable"',
  },
})

export const listTechnicalAnalysisHistory = defineEndpoint({
  path: '/technical-analysis/history',
  operationId: 'listTechnicalAnalysisHistory',
  tag: 'Technical analysis',
  summary: 'The indicators as they stood at each closed 4-hour candle, oldest first',
  description: 'Candles starting in [start_time, end_time] (both or neither), or without a range the latest `limit` before the `offset` newest.',
  query: strictQuery({
    ...targetQueryShape,
    start_time: optionalTimeParam('start_time').meta({ description: START_TIME_DESCRIPTION }),
    end_time: optionalTimeParam('end_time').meta({ description: END_TIME_DESCRIPTION }),
    ...pageQueryShape(MAX_SERIES_LIMIT),
  }).superRefine(checkTimeRange),
  body: technicalAnalysisBody,
  success: { description: 'A page of indicator points', schema: pageEnvelope(indicatorPointSchema), csv: true },
  errors: { 400: 'A malformed, missing or unknown parameter', 404: 'An unknown token' },
})
