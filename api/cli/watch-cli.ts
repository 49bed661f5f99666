/**
 * `npm run watch -- [--tracked] [--address A] [--token-id T] [--min-value-usd N] [--url U]`:
 * prints GET /stream/swaps one line per swap (and per retraction), reconnecting with the
 * last event id when the stream ends.
 */
import { readCommandLine, UsageError } from '../../shared/platform/command-line.js'
import { retractionLine, swapLine } from './swap-line.js'
import { sseMessages } from './sse-lines.js'

const USAGE = `usage: npm run watch -- [options]

Prints the swaps the service stores from now on, one line each (time, wallet,
sold → bought, USD value, dex), and retractions (GET /stream/swaps).

options:
  --tracked            only the tracked wallets' swaps
  --address A          only this wallet's swaps
  --token-id T         only swaps of this token (either side)
  --min-value-usd N    only swaps worth at least N USD
  --url U              the service (default http://localhost:3000)
  -h, --help           this text

exit codes:
  0  the stream ended (the server shut down)
  1  the service cannot be reached, or refused the request
  2  bad arguments`

const command = { name: 'watch', usage: USAGE, shortUsage: 'usage: npm run watch -- [--tracked] [--address A] [--token-id T] [--min-value-usd N] [--url U] (--help for more)' }

const url = readCommandLine(
  command,
  {
    tracked: { type: 'boolean', default: false },
    address: { type: 'string' },
    'token-id': { type: 'string' },
    'min-value-usd': { type: 'string' },
    url: { type: 'string', default: 'http://localhost:3000' },
  },
  (v) => {
    if (!URL.canParse(v.url)) throw new UsageError(`--url must be a URL (got "${v.url}")`)
    const target = new URL('/stream/swaps', v.url)
    if (v.tracked) target.searchParams.set('tracked', 'true')
    if (v.address !== undefined) target.searchParams.set('address', v.address)
    if (v['token-id'] !== undefined) target.searchParams.set('token_id', v['token-id'])
    if (v['min-value-usd'] !== undefined) target.searchParams.set('min_value_usd', v['min-value-usd'])
    return target
  },
)

async function watch(): Promise<number> {
  let lastId: string | undefined
  for (;;) {
    const res = await fetch(url, { headers: lastId === undefined ? {} : { 'last-event-id': lastId } })
    if (!res.ok || res.body === null) {
      const body = await res.text()
      let message = body
      try {
        message = (JSON.parse(body) as { message?: string }).message ?? body
      } catch {}
      process.stderr.write(`watch: ${res.status} ${message}\n`)
      return 1
    }
    let reason: string | undefined
    for await (const m of sseMessages(res.body)) {
      if (m.id !== undefined) lastId = m.id
      if (m.event === 'swap') process.stdout.write(`${swapLine(JSON.parse(m.data))}\n`)
      else if (m.event === 'retraction') process.stdout.write(`${retractionLine(JSON.parse(m.data))}\n`)
      else if (m.event === 'reset') process.stderr.write(`watch: ${(JSON.parse(m.data) as { message: string }).message}\n`)
      else if (m.event === 'closed') reason = (JSON.parse(m.data) as { reason: string }).reason
    }
    if (reason === 'shutdown') return 0
  }
}

watch().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`watch: ${err instanceof Error ? err.message : String(err)} (${url.origin})\n`)
    process.exit(1)
  },
)
