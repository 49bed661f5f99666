import type { z } from 'zod'

/** The error statuses an endpoint documents, each with when it happens. */
export type ErrorStatus = 400 | 404 | 500 | 503

/** A query or path parameter object (zod-to-openapi reads its shape). */
export type ParameterObject = z.ZodObject

/**
 * One operation of the HTTP contract: its parameters and responses as zod schemas. The
 * route validates with them (parseRequest), and the OpenAPI document is made from them.
 */
export interface Endpoint {
  /** Express form: `/tokens/:contract_address`. */
  path: string
  operationId: string
  tag: string
  summary: string
  description?: string
  params?: ParameterObject
  query?: ParameterObject
  /** A JSON body (GET /technical-analysis takes its parameters there too). */
  body?: z.ZodType
  success: {
    description: string
    /** The JSON body; absent for a non-JSON response (see `mediaType`). */
    schema?: z.ZodType
    /** Default application/json. */
    mediaType?: string
    /** Lists: also served as text/csv with format=csv. */
    csv?: boolean
  }
  errors: Partial<Record<ErrorStatus, string>>
  /** Operator endpoints: never need an API key and are not rate limited (access-control.ts). */
  open?: true
}

export function defineEndpoint<const E extends Endpoint>(endpoint: E): E {
  return endpoint
}

/** `/tokens/:contract_address` → `/tokens/{contract_address}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}
