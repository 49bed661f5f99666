import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  path: string
  /** The `webhook-id` header. */
  id: string
  type: string
  /** The firing's id (`data.id` of the body). */
  firingId: string
  body: { type: string; timestamp: string; data: Record<string, any> }
  verified: boolean
  /** What the receiver answered; null: it held the request and dropped it unanswered. */
  status: number | null
  at: number
}

/**
 * A webhook receiver on node:http verifying every delivery with standardwebhooks' own
 * Webhook.verify, with the secret of its path (a bad signature is answered 400). A path can
 * be held: its requests are kept unanswered and reported to `onHeld`, to be answered or
 * dropped later. It can stop listening and listen again on the same port (a receiver down).
 */
export class WebhookReceiver {
  readonly secrets = new Map<string, string>()
  readonly held = new Set<string>()
  readonly received: ReceivedWebhook[] = []
  onHeld: (received: ReceivedWebhook) => void = () => undefined
  private readonly waiting: Array<{ received: ReceivedWebhook; res: ServerResponse }> = []
  private server: Server | undefined
  port = 0

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Listens on `port` (0: one the OS gives, kept for later listens). */
  async listen(port = this.port): Promise<void> {
    const server = createServer((req, res) => this.take(req, res))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    this.server = server
    this.port = (server.address() as AddressInfo).port
  }

  /** Stops listening: connections are refused until the next listen(). */
  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    this.drop()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** The deliveries to `path` answered 200. */
  delivered(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path && r.status === 200)
  }

  /** Answers the held requests with 200. */
  release(): void {
    for (const { received, res } of this.waiting.splice(0)) {
      received.status = 200
      res.writeHead(200).end()
    }
  }

  /** Closes the held requests' connections without an answer. */
  drop(): void {
    for (const { res } of this.waiting.splice(0)) res.destroy()
  }

  private take(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? ''
      let verified = true
      try {
        new Webhook(this.secrets.get(path) ?? 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(text, req.headers as Record<string, string>)
      } catch {
        verified = false
      }
      const body = JSON.parse(text)
      const received: ReceivedWebhook = {
        path,
        id: String(req.headers['webhook-id']),
        type: body.type,
        firingId: body.data?.id,
        body,
        verified,
        status: null,
        at: Date.now(),
      }
      this.received.push(received)
      if (verified && this.held.has(path)) {
        this.waiting.push({ received, res })
        this.onHeld(received)
        return
      }
      received.status = verified ? 200 : 400
      res.writeHead(received.status).end()
    })
  }
}
