import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventSource } from 'eventsource'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer } from '../api/api-server.js'
import { feedPosition } from '../shared/changes/change-feed.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * GET /stream/swaps on the real embedded store and HTTP, with the `eventsource` client:
 * swaps arrive as GET /swap-transactions lists them, filters, resuming by Last-Event-ID,
 * retractions, the restart point, slow clients and heartbeats.
 */

interface Received {
  event: string
  id: string
  data: any
}

/** An EventSource that records every swap, retraction and reset it receives. */
function listen(url: string, init?: { lastEventId?: string }) {
  const received: Received[] = []
  const source = new EventSource(url, {
    fetch: (input, request) => fetch(input, { ...request, headers: { ...request?.headers, ...(init?.lastEventId ? { 'last-event-id': init.lastEventId } : {}) } }),
  })
  for (const event of ['swap', 'retraction', 'reset', 'closed']) {
    source.addEventListener(event, (e) => received.push({ event, id: e.lastEventId, data: JSON.parse(e.data) }))
  }
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve()
    source.onerror = (err) => reject(err)
  })
  return { source, received, opened }
}

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const wallet = addressFor('stream-wallet')
const tracked = addressFor('stream-tracked')
const tokenA = addressFor('stream-token-a')
const tokenB = addressFor('stream-token-b')
const tokenC = addressFor('stream-token-c')
const now = Date.now()

function swap(label: string, extra: Partial<SwapRowInput> = {}): SwapRowInput {
  return { hash: hashFor(label), timestamp: now - 60_000, wallet_address: wallet, token_sold_address: tokenA, token_bought_address: tokenB, value_usd: 100, ...extra }
}

describe('GET /stream/swaps', () => {
  let runtime: TestRuntime
  let api: TestApi
  let dir: string
  const open: EventSource[] = []
  const stream = (query = '', init?: { lastEventId?: string }) => {
    const l = listen(`${api.baseUrl}/stream/swaps${query}`, init)
    open.push(l.source)
    return l
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swap-stream-'))
    const file = join(dir, 'tracked.txt')
    writeFileSync(file, `${tracked} Tracked one\n`)
    runtime = await createTestRuntime({ SWAP_STREAM_HEARTBEAT_MS: '200', SWAP_STREAM_MAX_PENDING_BYTES: '4096', TRACKED_WALLETS_FILE: file })
    api = await startTestApi(runtime)
  })

  afterEach(() => {
    for (const s of open.splice(0)) s.close()
  })

  afterAll(async () => {
    await api?.close()
    await runtime?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  it('sends a stored swap as GET /swap-transactions lists it, once for its two legs', async () => {
    const all = stream()
    await all.opened
    await insertSwaps(runtime, [swap('equal')])
    const [event] = await until('the swap', () => all.received.length > 0 && all.received)
    const page = await getJson(`${api.baseUrl}/swap-transactions?start_time=0&end_time=${now}&token_id=${tokenA}`)
    const listed = page.body.result.find((s: { hash: string }) => s.hash === hashFor('equal'))
    expect(event!.event).toBe('swap')
    expect(event!.id).toMatch(/^\d+-\d+$/)
    expect(event!.data).toEqual(listed)
    await new Promise((r) => setTimeout(r, 300))
    expect(all.received).toHaveLength(1)
  })

  it('filters by address, token_id, tracked and min_value_usd', async () => {
    const byWallet = stream(`?address=${wallet.toUpperCase().replace('0X', '0x')}`)
    const byToken = stream(`?token_id=${tokenC}`)
    const byTracked = stream('?tracked=true')
    const byValue = stream('?min_value_usd=500')
    const all = stream()
    await Promise.all([byWallet, byToken, byTracked, byValue, all].map((l) => l.opened))
    await insertSwaps(runtime, [
      swap('f-wallet'),
      swap('f-token', { wallet_address: addressFor('other'), token_bought_address: tokenC }),
      swap('f-tracked', { wallet_address: tracked }),
      swap('f-value', { wallet_address: addressFor('other'), value_usd: 750 }),
      swap('f-no-value', { wallet_address: addressFor('other'), value_usd: null }),
    ])
    await until('every swap', () => all.received.length === 5)
    const hashes = (l: { received: Received[] }) => l.received.map((r) => r.data.hash).sort()
    expect(hashes(byWallet)).toEqual([hashFor('f-wallet')])
    expect(hashes(byToken)).toEqual([hashFor('f-token')])
    expect(hashes(byTracked)).toEqual([hashFor('f-tracked')])
    expect(hashes(byValue)).toEqual([hashFor('f-value')])
  })

  it('resumes after Last-Event-ID (header or query) with nothing missed and nothing twice', async () => {
    const first = stream()
    await first.opened
    await insertSwaps(runtime, [swap('r-1'), swap('r-2', { timestamp: now - 30_000 })])
    await until('two swaps', () => first.received.length === 2)
    const seen = first.received[0]!.id
    first.source.close()
    await insertSwaps(runtime, [swap('r-3')])
    await insertSwaps(runtime, [swap('r-4')])
    // A backlog of some 80 KB, far above the 4 KB bound: sent at the pace the client reads.
    const bulk = Array.from({ length: 100 }, (_, i) => swap(`r-bulk-${i}`, { timestamp: now - 29_000 + i }))
    await insertSwaps(runtime, bulk)
    const byHeader = stream('', { lastEventId: seen })
    const byQuery = stream(`?last_event_id=${seen}`)
    await until('the rest', () => byHeader.received.length >= 103 && byQuery.received.length >= 103)
    await insertSwaps(runtime, [swap('r-5')])
    await until('the live one', () => byHeader.received.length >= 104 && byQuery.received.length >= 104)
    await new Promise((r) => setTimeout(r, 300))
    // One insert's swaps are one block's events, in the order of their hashes.
    const bulkHashes = bulk.map((s) => s.hash).sort()
    const expected = [first.received[1]!.data.hash, hashFor('r-3'), hashFor('r-4'), ...bulkHashes, hashFor('r-5')]
    for (const l of [byHeader, byQuery]) {
      expect(l.received.map((r) => r.data.hash)).toEqual(expected)
      expect(new Set(l.received.map((r) => r.id)).size).toBe(expected.length)
    }
  })

  it('sends a re-delivery at another time as a retraction, then the swap at its new time', async () => {
    const all = stream()
    await all.opened
    await insertSwaps(runtime, [swap('moved', { timestamp: now - 50_000 })])
    await until('the swap', () => all.received.length === 1)
    await insertSwaps(runtime, [swap('moved', { timestamp: now - 40_000, ingested_at: Date.now() + 1 })])
    await until('the retraction and the swap', () => all.received.length === 3)
    expect(all.received.slice(1).map((r) => [r.event, r.data.timestamp_ms])).toEqual([
      ['retraction', now - 50_000],
      ['swap', now - 40_000],
    ])
    expect(all.received[1]!.data).toEqual({ chain_id: 1, hash: hashFor('moved'), timestamp_ms: now - 50_000, wallet_address: wallet })
  })

  it('answers a malformed Last-Event-ID or parameter with a JSON 400 naming it', async () => {
    const header = await getJson(`${api.baseUrl}/stream/swaps`, { headers: { 'last-event-id': 'yesterday' } })
    expect(header.status).toBe(400)
    expect(header.body).toMatchObject({ status: 'error', message: expect.stringContaining('Last-Event-ID') })
    for (const [query, name] of [
      ['last_event_id=12', 'last_event_id'],
      ['min_value_usd=-1', 'min_value_usd'],
      ['tracked=yes', 'tracked'],
      ['address=0x12', 'address'],
      ['since=1', 'since'],
    ]) {
      const res = await getJson(`${api.baseUrl}/stream/swaps?${query}`)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(name)
    }
  })

  it('restarts from now, after a reset event, from an id beyond the feed', async () => {
    const ahead = stream('', { lastEventId: '999999999-1' })
    await until('the reset', () => ahead.received.length === 1)
    expect(ahead.received[0]).toMatchObject({ event: 'reset', data: { reason: 'ahead' } })
    await insertSwaps(runtime, [swap('after-reset')])
    await until('the swap', () => ahead.received.length === 2)
    expect(ahead.received[1]!.data.hash).toBe(hashFor('after-reset'))
  })

  it('sends heartbeats', async () => {
    const text = await rawRead(api.baseUrl, '/stream/swaps', 500)
    expect(text).toMatch(/^HTTP\/1\.1 200/)
    expect(text).toContain('content-type: text/event-stream')
    expect(text).toContain(': heartbeat\n\n')
  })

  it('npm run watch prints a line per swap and per retraction', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/cli/watch-cli.ts', '--url', api.baseUrl, '--address', wallet, '--min-value-usd', '50'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    try {
      // Swaps until the watcher, once connected, prints one.
      const line = until('a line', () => out.includes('→') && out, 15_000)
      for (let i = 0; i < 50 && !out.includes('→'); i++) {
        await insertSwaps(runtime, [swap(`watched-${i}`, { dex: 'watch-dex' })])
        await new Promise((r) => setTimeout(r, 300))
      }
      expect(await line).toMatch(new RegExp(`${wallet}  \\S+ \\S+ → \\S+ \\S+  \\$100\\.00  watch-dex\n`))
      // Moved to another time: the old version's retraction has its line too.
      await insertSwaps(runtime, [swap('watched-0', { dex: 'watch-dex', timestamp: now - 10_000, ingested_at: Date.now() + 1 })])
      const retracted = await until('the retraction line', () => out.includes(' retracted ') && out, 10_000)
      expect(retracted).toContain(`${new Date(now - 60_000).toISOString()}  ${wallet}  retracted ${hashFor('watched-0')} (chain 1)\n`)
    } finally {
      child.kill()
    }
  }, 30_000)

  it('npm run watch exits 1 with the server\'s message when it refuses the filters', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/cli/watch-cli.ts', '--url', api.baseUrl, '--min-value-usd', 'lots'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(err).toMatch(/^watch: 400 min_value_usd must be a non-negative number of USD/)
  }, 30_000)

  it('closes a client that does not read once more than the bound waits for it, and only that client', async () => {
    await until('no stream open', async () => (await metric(api, 'swap_stream_clients')) === 0)
    const reader = stream()
    await reader.opened
    const socket = connect(Number(new URL(api.baseUrl).port), '127.0.0.1')
    socket.pause()
    socket.write('GET /stream/swaps HTTP/1.1\r\nHost: x\r\n\r\n')
    await until('both streams open', async () => (await metric(api, 'swap_stream_clients')) === 2)
    const slowClosed = await metric(api, 'swap_stream_ended_total{reason="slow_client"}')
    // Runs of 4,000 swaps (about 3 MB each, far above the 4 KB bound, written at once): the
    // reader takes each in time; the socket's kernel buffers fill, then bytes wait for it.
    let stored = 0
    for (let round = 0; round < 8 && (await metric(api, 'swap_stream_ended_total{reason="slow_client"}')) === slowClosed; round++) {
      await insertSwaps(runtime, Array.from({ length: 4_000 }, (_, i) => swap(`slow-${round}-${i}`, { timestamp: now - 20_000 + round * 4_000 + i })))
      stored += 4_000
      await until('the reader has the run', () => reader.received.length === stored, 10_000)
    }
    await until('the slow client closed', async () => (await metric(api, 'swap_stream_ended_total{reason="slow_client"}')) === slowClosed + 1, 3_000)
    // The slow client has left the hub; the reader is still there, and got every swap.
    expect(await metric(api, 'swap_stream_clients')).toBe(1)
    expect(reader.received.every((r) => r.event === 'swap')).toBe(true)
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.resume()
    await new Promise((r) => socket.once('end', r))
    const text = Buffer.concat(chunks).toString('utf8')
    expect(text.slice(text.lastIndexOf('event: '))).toMatch(/^event: closed\ndata: \{"reason":"slow_client"/)
  }, 40_000)

  it('restarts from now, after a reset event, from an id older than the feed keeps', async () => {
    const first = stream()
    await first.opened
    await insertSwaps(runtime, [swap('expiring')])
    const [seen] = await until('the swap', () => first.received.length === 1 && first.received)
    await insertSwaps(runtime, [swap('kept')])
    await until('the next swap', () => first.received.length === 2)
    // What the feed's retention does to the changes at or below the id's position.
    await runtime.clickhouse.command({
      query: `ALTER TABLE ${runtime.tables.changes} DELETE WHERE _block_number <= {block:UInt64}`,
      query_params: { block: Number(seen!.id.split('-')[0]) },
      clickhouse_settings: { mutations_sync: '2' },
    })
    const late = stream('', { lastEventId: seen!.id })
    await until('the reset', () => late.received.length === 1)
    expect(late.received[0]).toMatchObject({ event: 'reset', data: { reason: 'expired' } })
    await insertSwaps(runtime, [swap('after-expiry')])
    await until('the swap', () => late.received.length === 2)
    expect(late.received[1]!.data.hash).toBe(hashFor('after-expiry'))
  })

  it('resumes on another API process of the store, even one whose last poll is behind the id', async () => {
    const other = await startTestApi(runtime)
    try {
      // A stream keeps the other process's poller running, so its position can lag the first's.
      const keepAlive = listen(`${other.baseUrl}/stream/swaps?address=${addressFor('nobody')}`)
      open.push(keepAlive.source)
      await keepAlive.opened
      for (let round = 0; round < 3; round++) {
        // The id a client of another process got for this swap, taken from the feed at once,
        // before this process's next poll most likely: one swap's legs are one block, one event.
        await insertSwaps(runtime, [swap(`moved-from-${round}`)])
        const id = `${await feedPosition(runtime.clickhouse, runtime.tables)}-1`
        const there = listen(`${other.baseUrl}/stream/swaps`, { lastEventId: id })
        open.push(there.source)
        await there.opened
        await insertSwaps(runtime, [swap(`moved-to-${round}`)])
        await until('the next swap', () => there.received.length >= 1)
        await new Promise((r) => setTimeout(r, 250))
        expect(there.received.map((r) => [r.event, r.data.hash])).toEqual([['swap', hashFor(`moved-to-${round}`)]])
      }
    } finally {
      for (const s of open.splice(0)) s.close()
      await other.close()
    }
  })

  it('ends open streams with a closed event when the server shuts down', async () => {
    const other = await startTestApi(runtime)
    const socket = connect(Number(new URL(other.baseUrl).port), '127.0.0.1')
    let text = ''
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')))
    socket.write('GET /stream/swaps HTTP/1.1\r\nHost: x\r\n\r\n')
    await until('the stream', () => text.includes('retry: '))
    const ended = new Promise((r) => socket.once('end', r))
    const started = Date.now()
    await other.close()
    await ended
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(text.slice(text.lastIndexOf('event: '))).toMatch(/^event: closed\ndata: \{"reason":"shutdown"/)
  })

  it('is not offered on a ClickHouse cluster: a JSON 404 saying so, parameters checked first', async () => {
    const onCluster = await startApiServer({ ...runtime, config: { ...runtime.config, storage: { ...runtime.config.storage, cluster: 'test_cluster' } } }, 0, '127.0.0.1')
    try {
      const base = `http://127.0.0.1:${onCluster.port}`
      const res = await getJson(`${base}/stream/swaps`)
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ status: 'error', message: expect.stringContaining('not offered on a ClickHouse cluster') })
      expect((await getJson(`${base}/stream/swaps?min_value_usd=x`)).status).toBe(400)
    } finally {
      await onCluster.close()
    }
  })
})

/** A metric of the API's GET /metrics (its first sample whose name and labels start so), 0 when absent. */
async function metric(api: TestApi, sample: string): Promise<number> {
  const text = await (await fetch(`${api.baseUrl}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `))
  return line === undefined ? 0 : Number(line.slice(sample.length + 1))
}

/** What a raw connection reads in `ms` (headers and body as they come). */
function rawRead(baseUrl: string, path: string, ms: number): Promise<string> {
  const { port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    let text = ''
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')))
    socket.on('error', reject)
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
    setTimeout(() => {
      socket.destroy()
      resolve(text.toLowerCase().replace(/^http\/1\.1/, 'HTTP/1.1'))
    }, ms)
  })
}
