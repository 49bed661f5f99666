/** The statuses a handler may answer with (408 and 431 come from the server itself, see client-error-response.ts). */
export type HttpErrorStatus = 400 | 401 | 404 | 405 | 429 | 500 | 503

/** An error that becomes an HTTP response: `{"status":"error","message":...}` with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: HttpErrorStatus,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'HttpError'
  }
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, message)
}

export function notFound(message: string): HttpError {
  return new HttpError(404, message)
}

/** Answered with an `Allow` header naming the methods the path takes (see method-guard.ts). */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): HttpError {
  return new HttpError(405, `Method ${method} is not allowed on ${path}; use ${allowed.join(' or ')}`)
}

/** A dependency (Redis, ClickHouse) is unreachable: no details, they are logged once per outage. */
export const SERVICE_UNAVAILABLE_MESSAGE = 'service unavailable'

export function serviceUnavailable(): HttpError {
  return new HttpError(503, SERVICE_UNAVAILABLE_MESSAGE)
}
