import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import { openApiPath, type Endpoint } from './endpoint.js'
import { errorSchema } from './envelopes.js'
import { PUBLIC_ENDPOINTS } from './public-endpoints.js'

const errorContent = { 'application/json': { schema: errorSchema } }

function responses(endpoint: Endpoint): Record<string, ResponseConfig> {
  const { success } = endpoint
  const content: NonNullable<ResponseConfig['content']> = {}
  content[success.mediaType ?? 'application/json'] = { schema: success.schema ?? z.string() }
  if (success.csv) {
    content['text/csv'] = { schema: z.string().meta({ description: 'With format=csv: a header row, then one row per record (the JSON rows\' columns)' }) }
  }
  const all: Record<string, ResponseConfig> = { 200: { description: success.description, content } }
  for (const [status, description] of Object.entries(endpoint.errors)) {
    all[status] = { description, content: errorContent }
  }
  if (endpoint.errors[500] === undefined) all[500] = { description: 'A failure (details are logged, not returned)', content: errorContent }
  if (!endpoint.open) {
    all[401] = { description: 'With API_KEYS set: no API key, or not a valid one', content: errorContent }
    all[429] = { description: 'With RATE_LIMIT_PER_MINUTE set: over the limit; Retry-After says when to retry', content: errorContent }
  }
  return all
}

/** With API_KEYS set, the read API takes a key in either header; without, none (the empty requirement). */
const readSecurity: Record<string, string[]>[] = [{}, { apiKey: [] }, { bearer: [] }]

function register(registry: OpenAPIRegistry, endpoint: Endpoint): void {
  registry.registerPath({
    method: 'get',
    path: openApiPath(endpoint.path),
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
    request: {
      ...(endpoint.params === undefined ? {} : { params: endpoint.params }),
      ...(endpoint.query === undefined ? {} : { query: endpoint.query }),
      ...(endpoint.body === undefined
        ? {}
        : { body: { required: false, description: 'The same parameters as a JSON object (GET with Content-Type: application/json)', content: { 'application/json': { schema: endpoint.body } } } }),
    },
    security: endpoint.open ? [] : readSecurity,
    responses: responses(endpoint),
  })
}

/** The OpenAPI 3.1 document of every public endpoint, made from their zod schemas. */
export function openApiDocument(endpoints: readonly Endpoint[] = PUBLIC_ENDPOINTS) {
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' })
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' })
  for (const endpoint of endpoints) register(registry, endpoint)
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Smart-money token data service',
      version: '1',
      description:
        'A read-only JSON API: tokens, holdings of tracked wallets, their swap transactions, candles and technical indicators. ' +
        'Every success is `{"status":"success","result":...}` (with `pagination` on lists); every error is `{"status":"error","message":...}`. ' +
        'Times are Unix milliseconds; addresses are accepted in any case and served in lower case; raw amounts are uint256 decimal strings. ' +
        'An unknown query parameter is a 400 that lists the accepted ones. Methods other than GET and HEAD are a 405 (404 on an unknown path). ' +
        'Whose swaps and holdings are served is the operator\'s setting SERVED_WALLETS: every stored wallet\'s (`all`, the default), or only the tracked set\'s (`tracked`: the wallets GET /wallets lists); ' +
        'then a wallet outside the set is an empty page with a `message`, and its swap or holding by id a 404, while its rows stay stored.',
    },
    tags: [
      { name: 'Tokens' },
      { name: 'Holdings' },
      { name: 'Swap transactions' },
      { name: 'Technical analysis' },
      { name: 'Operations', description: 'Health, readiness and metrics' },
    ],
  })
}
