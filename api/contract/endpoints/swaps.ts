import { z } from 'zod'
import { defineEndpoint } from '../endpoint.js'
import { cursorPaginationSchema, pageEnvelope, resultEnvelope } from '../envelopes.js'
import {
  addressParam,
  checkTimeRange,
  END_TIME_DESCRIPTION,
  formatParam,
  limitParam,
  nonEmptyParam,
  optionalOffsetParam,
  START_TIME_DESCRIPTION,
  strictQuery,
  timeParam,
  txHashParam,
} from '../parameters.js'
import { swapSchema } from '../resources.js'

/** The query of a list of swaps; `address` only where the path does not name the wallet. */
const swapListShape = {
  start_time: timeParam('start_time').meta({ description: START_TIME_DESCRIPTION }),
  end_time: timeParam('end_time').meta({ description: END_TIME_DESCRIPTION }),
  token_id: nonEmptyParam('token_id').optional().meta({ description: 'Only swaps whose sold or bought token has this id' }),
  cursor: nonEmptyParam('cursor').optional().meta({ description: 'Keyset paging: pagination.next_cursor of the previous page (instead of offset)' }),
  limit: limitParam(),
  offset: optionalOffsetParam,
  format: formatParam,
}

function checkSwapListQuery(query: { start_time?: number; end_time?: number; cursor?: string | undefined; offset?: number | undefined }, ctx: z.RefinementCtx): void {
  checkTimeRange(query, ctx)
  if (query.cursor !== undefined && query.offset !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'give either cursor or offset, not both' })
  }
}

const PAGING_DESCRIPTION =
  'Page with `offset`, or walk with `cursor` (the previous page\'s `pagination.next_cursor`, with the same start_time, end_time, address and token_id). ' +
  'When both times are below 10^11 (they look like seconds) and the range is empty, `message` says times are milliseconds.'

export const listSwaps = defineEndpoint({
  path: '/swap-transactions',
  operationId: 'listSwapTransactions',
  tag: 'Swap transactions',
  summary: 'Swaps of the tracked wallets in a time range, newest first, then hash',
  description: PAGING_DESCRIPTION,
  query: strictQuery({
    ...swapListShape,
    address: addressParam('address').optional().meta({ description: 'Only swaps of this wallet (any case)' }),
  }).superRefine(checkSwapListQuery),
  success: { description: 'A page of swaps', schema: pageEnvelope(swapSchema, cursorPaginationSchema), csv: true },
  errors: { 400: 'A malformed, missing or unknown parameter, or a cursor of another query' },
})

export const listWalletSwaps = defineEndpoint({
  path: '/wallets/:address/swaps',
  operationId: 'listWalletSwaps',
  tag: 'Wallets',
  summary: "One wallet's swaps in a time range: GET /swap-transactions?address=… under the wallet's path",
  description: PAGING_DESCRIPTION,
  params: z.object({ address: addressParam('address') }),
  query: strictQuery(swapListShape).superRefine(checkSwapListQuery),
  success: { description: "A page of the wallet's swaps", schema: pageEnvelope(swapSchema, cursorPaginationSchema), csv: true },
  errors: { 400: 'A malformed, missing or unknown parameter, or a cursor of another query' },
})

export const getSwap = defineEndpoint({
  path: '/swap-transactions/:hash',
  operationId: 'getSwapTransaction',
  tag: 'Swap transactions',
  summary: 'One swap by transaction hash (any case); should two chains share it, the lowest chain_id',
  params: z.object({ hash: txHashParam('hash') }),
  query: strictQuery({}),
  success: { description: 'The swap', schema: resultEnvelope(swapSchema) },
  errors: { 400: 'A malformed hash or an unknown parameter', 404: 'No swap transaction with this hash' },
})
