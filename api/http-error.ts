/** An error that becomes an HTTP response: `{"status":"error","message":...}` with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 404 | 500,
    message: string,
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, message)
}

export function notFound(message: string): HttpError {
  return new HttpError(404, message)
}
