import { connect, type Socket } from 'node:net'

/** What came back on a raw connection, and when it closed. */
export interface RawExchange {
  /** Everything the server wrote. */
  text: string
  /** The status of the first response, or undefined if nothing came back. */
  status: number | undefined
  headers: Record<string, string>
  /** The body of the first response parsed as JSON (undefined when empty). */
  json: unknown
  /** ms from the connection to its close. */
  closedAfterMs: number
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

function parseResponse(text: string): Pick<RawExchange, 'status' | 'headers' | 'json'> {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return { status: undefined, headers: {}, json: undefined }
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'] ?? '0')
  const body = text.slice(end + 4, end + 4 + length)
  return { status: Number(statusLine.split(' ')[1]), headers, json: body === '' ? undefined : JSON.parse(body) }
}

/** Collects what the server writes until it closes the connection (or `giveUpMs`). */
export function untilClosed(socket: Socket, giveUpMs = 20_000): Promise<RawExchange> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms`))
    }, giveUpMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => undefined)
    socket.once('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      resolve({ text, ...parseResponse(text), closedAfterMs: Date.now() - started })
    })
  })
}

/** Sends `payload` on a fresh connection and returns what comes back before the server closes it. */
export async function rawExchange(port: number, payload: string): Promise<RawExchange> {
  const socket = await openSocket(port)
  const closed = untilClosed(socket)
  socket.write(payload)
  return closed
}

/** Writes `payload` one byte at a time, the first at once and then `intervalMs` apart, until done or the socket closes. */
export function trickle(socket: Socket, payload: string, intervalMs: number): { bytesSent: () => number } {
  let sent = 0
  const sendOne = () => {
    if (sent >= payload.length || socket.destroyed || !socket.writable) {
      clearInterval(timer)
      return
    }
    socket.write(payload[sent]!)
    sent++
  }
  const timer = setInterval(sendOne, intervalMs)
  sendOne()
  socket.once('close', () => clearInterval(timer))
  return { bytesSent: () => sent }
}
