import type { Duplex } from 'node:stream'

interface RawResponse {
  status: number
  reason: string
  message: string
}

/** What the server answers to a request it could not read (no route ever sees it). */
function responseFor(code: string | undefined): RawResponse {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large' }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', message: 'The request was not received in time' }
    default:
      return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP' }
  }
}

/** True once a response on this connection has sent its headers: a raw answer would corrupt it. */
function responseUnderway(socket: Duplex): boolean {
  const message: unknown = Reflect.get(socket, '_httpMessage')
  return typeof message === 'object' && message !== null && Reflect.get(message, 'headersSent') === true
}

/**
 * The server's 'clientError' listener: a malformed request line, oversized headers or a
 * request not received in time (HTTP_*_TIMEOUT_MS) gets the JSON error envelope, written
 * on the raw socket (there is no request or response object), and the connection closes.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable || responseUnderway(socket)) {
    socket.destroy()
    return
  }
  const { status, reason, message } = responseFor(err.code)
  const body = JSON.stringify({ status: 'error', message })
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n')
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy())
}
