import type { Request } from 'express'
import type { z } from 'zod'
import { badRequest } from '../http-error.js'
import type { Endpoint } from './endpoint.js'
import { parameterIssueMessage } from './parameter-issues.js'
import { strictQuery } from './parameters.js'

type Output<S> = S extends z.ZodType ? z.output<S> : Record<string, never>

export interface ParsedRequest<E extends Endpoint> {
  params: Output<E['params']>
  query: Output<E['query']>
  body: Output<E['body']>
}

const noQuery = strictQuery({})

/** The message of a failed parse: an unknown parameter first (it explains the rest), else the first problem. */
function firstMessage(error: z.ZodError): string {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]
  return issue?.message ?? 'The request parameters are not valid'
}

/** Throws a 400 with the schema's message, or one naming the parameter (parameter-issues.ts). */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input, { error: parameterIssueMessage })
  if (!parsed.success) throw badRequest(firstMessage(parsed.error))
  return parsed.data
}

/**
 * The request's path parameters, query and body as the endpoint declares them, or a 400
 * naming the first problem. Checked in that order; a query parameter the endpoint does
 * not declare is a 400 too.
 */
export function parseRequest<E extends Endpoint>(endpoint: E, req: Request): ParsedRequest<E> {
  const params = endpoint.params === undefined ? {} : parseWith(endpoint.params, req.params)
  const query = parseWith(endpoint.query ?? noQuery, req.query)
  const body = endpoint.body === undefined ? {} : parseWith(endpoint.body, req.body)
  return { params, query, body } as ParsedRequest<E>
}
