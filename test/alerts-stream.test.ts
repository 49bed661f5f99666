import { connect } from 'node:net'
import { EventSource } from 'eventsource'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startApiServer } from '../api/api-server.js'
import { startAlerts } from '../indicators/alert-runner.js'
import { swapRetractionRows } from '../ingest/pipeline/swap-retractions.js'
import { ALERTS_CONSUMER } from '../shared/alerts/alert-evaluation.js'
import { firingId, type AlertFiring } from '../shared/alerts/alert-firing.js'
import { AlertFiringsStore } from '../shared/alerts/alert-firings-store.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { DAY_MS } from '../shared/platform/time-units.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { addressFor, hashFor, insertSwaps, mixedCase, tradeRow, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * GET /stream/alerts on the real embedded store, Redis and HTTP, with the `eventsource`
 * client: rules made over the admin API, swaps stored through the swaps' write path, the
 * indicators role's evaluator storing the firings; firings and retractions arrive as GET
 * /alerts lists them, filtered, resumable by Last-Event-ID, with restart points.
 */

const ADMIN = 'admin-token-alerts-stream-0123'
const WALLET = addressFor('alert-stream-wallet')
const TOKEN_A = addressFor('alert-stream-token-a')
const TOKEN_B = addressFor('alert-stream-token-b')
const QUOTE = { address: addressFor('alert-stream-usdc'), amount: '1000000' }
const HOUR = Date.UTC(2026, 0, 5, 10)
const EVENT_ID = /^\d+-[0-9a-f]{32}$/

interface Received {
  event: string
  id: string
  data: any
}

/** An EventSource that records every event it receives. */
function listen(url: string, init?: { lastEventId?: string }) {
  const received: Received[] = []
  const source = new EventSource(url, {
    fetch: (input, request) => fetch(input, { ...request, headers: { ...request?.headers, ...(init?.lastEventId ? { 'last-event-id': init.lastEventId } : {}) } }),
  })
  for (const event of ['alert', 'alert_retracted', 'reset', 'closed']) {
    source.addEventListener(event, (e) => received.push({ event, id: e.lastEventId, data: JSON.parse(e.data) }))
  }
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve()
    source.onerror = (err) => reject(err)
  })
  return { source, received, opened }
}

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The swap hash an alert event's firing came from (one per wallet_trade firing). */
const swapOf = (r: Received) => r.data.evidence.swaps[0].hash as string
/** What a stream received, as [event, swap label]. */
const labelled = (received: Received[], labels: string[]) => received.map((r) => [r.event, labels.find((l) => hashFor(l) === swapOf(r)) ?? swapOf(r)])

describe('GET /stream/alerts', () => {
  let rt: TestRuntime
  let api: TestApi
  let queues: QueueFactory
  let alerts: { stop(): Promise<void> }
  let ruleA: { id: string }
  let ruleB: { id: string }
  let minute = 0
  const open: EventSource[] = []
  const stream = (query = '', init?: { lastEventId?: string }, base = api.baseUrl) => {
    const l = listen(`${base}/stream/alerts${query}`, init)
    open.push(l.source)
    return l
  }

  /** A buy of `token` by the rules' wallet: stored, so the evaluator fires the rule of that token on it. */
  async function buy(label: string, token: string): Promise<SwapRowInput> {
    const row = tradeRow({ hash: hashFor(label), timestamp: HOUR + ++minute * 60_000, wallet: WALLET, side: 'buy', token: { address: token, amount: '5000000000000000000' }, quote: QUOTE, usd: 100 })
    await insertSwaps(rt, [row])
    return row
  }

  /** The alert GET /alerts lists for a swap label, once its firing (in that status) is stored. */
  async function listed(label: string, status: 'fired' | 'retracted' = 'fired'): Promise<any> {
    return until(`the ${status} alert of ${label}`, async () => {
      const page = await getJson(`${api.baseUrl}/alerts?limit=100`)
      return page.body.result.find((a: any) => a.evidence.swaps[0]?.hash === hashFor(label) && a.status === status)
    })
  }

  /** Retracts a stored swap with the rows ingestion writes for a swap_retraction record. */
  async function retract(row: SwapRowInput): Promise<void> {
    const record = { hash: row.hash, chain_id: 1, timestamp: row.timestamp, wallet_address: row.wallet_address, token_sold_address: row.token_sold_address, token_bought_address: row.token_bought_address }
    const { rows, rejected } = swapRetractionRows([record], rt.tables, Date.now())
    expect(rejected).toEqual([])
    if (!('rows' in rows) || typeof rows.table !== 'string') throw new Error('a swap retraction is rows of one table')
    await rt.clickhouse.insert({ table: rows.table, values: [...rows.rows], format: 'JSONEachRow' })
  }

  async function metric(sample: string): Promise<number> {
    const text = await (await fetch(`${api.baseUrl}/metrics`)).text()
    const line = text.split('\n').find((l) => l.startsWith(`${sample} `))
    return line === undefined ? 0 : Number(line.slice(sample.length + 1))
  }

  beforeAll(async () => {
    rt = await createTestRuntime({ ADMIN_TOKEN: ADMIN, SWAP_STREAM_HEARTBEAT_MS: '100' })
    api = await startTestApi(rt)
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const rule = async (name: string, token: string) =>
      (await getJson(`${api.baseUrl}/admin/alerts`, { method: 'POST', headers: admin, body: JSON.stringify({ name, kind: 'wallet_trade', wallets: [WALLET], token }) })).body.result
    ruleA = await rule('token a', TOKEN_A)
    ruleB = await rule('token b', TOKEN_B)
    queues = new QueueFactory(rt.config, rt.logger)
    alerts = startAlerts({ clickhouse: rt.clickhouse, tables: rt.tables, logger: rt.logger, queues, trackedWalletsFile: null, pollMs: 50 })
    // Its first step starts at the feed's head: wait for it, so the swaps below come after.
    await until('the evaluator to start', async () => {
      const rows = await queryRows<{ n: string }>(rt.clickhouse, `SELECT toString(count()) AS n FROM ${rt.tables.changePositions} WHERE consumer = {c:String}`, { c: ALERTS_CONSUMER })
      return Number(rows[0]?.n) > 0
    })
  })

  afterEach(() => {
    for (const s of open.splice(0)) s.close()
  })

  afterAll(async () => {
    await alerts?.stop()
    await queues?.close()
    await api?.close()
    await rt?.cleanup()
  })

  it('sends a stored firing as GET /alerts lists it, once', async () => {
    const all = stream()
    await all.opened
    await buy('live-1', TOKEN_A)
    const [event] = await until('the alert', () => all.received.length > 0 && all.received)
    expect(event!.event).toBe('alert')
    expect(event!.id).toMatch(EVENT_ID)
    expect(event!.id.endsWith(`-${event!.data.id.slice('alert_'.length)}`)).toBe(true)
    expect(event!.data).toEqual(await listed('live-1'))
    expect(event!.data).toMatchObject({ rule_id: ruleA.id, status: 'fired', token: TOKEN_A, wallet_address: WALLET })
    expect(await metric('alert_stream_clients')).toBe(1)
    // The next firing comes next: nothing was sent twice in between.
    await buy('live-2', TOKEN_A)
    await until('the next alert', () => all.received.length >= 2)
    expect(labelled(all.received, ['live-1', 'live-2'])).toEqual([
      ['alert', 'live-1'],
      ['alert', 'live-2'],
    ])
  })

  it('sends a retraction as alert_retracted: the alert as GET /alerts now lists it', async () => {
    const all = stream()
    await all.opened
    const row = await buy('retracted', TOKEN_A)
    const [fired] = await until('the alert', () => all.received.length === 1 && all.received)
    await retract(row)
    const [, retracted] = await until('the retraction', () => all.received.length === 2 && all.received)
    expect(retracted!.event).toBe('alert_retracted')
    expect(retracted!.id).toMatch(EVENT_ID)
    expect(retracted!.id).not.toBe(fired!.id)
    expect(retracted!.data).toMatchObject({ id: fired!.data.id, status: 'retracted', retracted_at: expect.any(Number) })
    expect(retracted!.data).toEqual(await listed('retracted', 'retracted'))
  })

  it('filters by rule_id and token, as GET /alerts does', async () => {
    const byRule = stream(`?rule_id=${ruleA.id}`)
    const byToken = stream(`?token=${mixedCase(TOKEN_B)}`)
    const all = stream()
    await Promise.all([byRule, byToken, all].map((l) => l.opened))
    await insertSwaps(rt, [
      tradeRow({ hash: hashFor('f-a'), timestamp: HOUR + ++minute * 60_000, wallet: WALLET, side: 'buy', token: { address: TOKEN_A, amount: '1' }, quote: QUOTE, usd: 5 }),
      tradeRow({ hash: hashFor('f-b'), timestamp: HOUR + ++minute * 60_000, wallet: WALLET, side: 'buy', token: { address: TOKEN_B, amount: '1' }, quote: QUOTE, usd: 5 }),
    ])
    await until('both alerts', () => all.received.length === 2 && byRule.received.length > 0 && byToken.received.length > 0)
    expect(byRule.received.map(swapOf)).toEqual([hashFor('f-a')])
    expect(byToken.received.map(swapOf)).toEqual([hashFor('f-b')])
    expect(byToken.received[0]!.data.rule_id).toBe(ruleB.id)
  })

  it('resumes after Last-Event-ID (header or query) with nothing missed and nothing twice', async () => {
    const labels = ['r-1', 'r-2', 'r-3', 'r-4', 'r-5', 'r-6']
    // Unmerged, every version is there to be sent again (a merge would fold r-2's firing into its retraction: below).
    await rt.clickhouse.command({ query: `SYSTEM STOP MERGES ${rt.tables.alertFirings}` })
    const first = stream()
    await first.opened
    await buy('r-1', TOKEN_A)
    const [seen] = await until('the first alert', () => first.received.length === 1 && first.received)
    first.source.close()
    // While away: two firings, one retracted since, in that order.
    const r2 = await buy('r-2', TOKEN_A)
    await listed('r-2')
    await buy('r-3', TOKEN_B)
    await listed('r-3')
    await retract(r2)
    await listed('r-2', 'retracted')
    const byHeader = stream('', { lastEventId: seen!.id })
    const byQuery = stream(`?last_event_id=${seen!.id}`)
    await until('the missed events', () => byHeader.received.length >= 3 && byQuery.received.length >= 3)
    await buy('r-4', TOKEN_A)
    await until('the live one', () => byHeader.received.length >= 4 && byQuery.received.length >= 4)
    for (const l of [byHeader, byQuery]) {
      expect(labelled(l.received, labels)).toEqual([
        ['alert', 'r-2'],
        ['alert', 'r-3'],
        ['alert_retracted', 'r-2'],
        ['alert', 'r-4'],
      ])
      expect(new Set(l.received.map((r) => r.id)).size).toBe(4)
    }

    // Once the store has merged a firing's versions, a client away over both gets its retraction alone.
    byQuery.source.close()
    const last = byQuery.received.at(-1)!.id
    const r5 = await buy('r-5', TOKEN_A)
    await until('the alert of r-5', () => byHeader.received.length === 5)
    await retract(r5)
    await until('the retraction of r-5', () => byHeader.received.length === 6)
    await rt.clickhouse.command({ query: `SYSTEM START MERGES ${rt.tables.alertFirings}` })
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.alertFirings} FINAL` })
    const afterMerge = stream('', { lastEventId: last })
    await buy('r-6', TOKEN_A)
    await until('the live one', () => afterMerge.received.length >= 2)
    expect(labelled(afterMerge.received, labels)).toEqual([
      ['alert_retracted', 'r-5'],
      ['alert', 'r-6'],
    ])
  })

  it('resumes on another API process of the store', async () => {
    const other = await startTestApi(rt)
    try {
      // A stream keeps the other process's poller running, so its position can lag this one's.
      const keepAlive = stream('?rule_id=rule_nobody', undefined, other.baseUrl)
      const here = stream()
      await Promise.all([keepAlive.opened, here.opened])
      await buy('o-1', TOKEN_A)
      const [seen] = await until('the alert here', () => here.received.length === 1 && here.received)
      const there = stream('', { lastEventId: seen!.id }, other.baseUrl)
      await there.opened
      await buy('o-2', TOKEN_A)
      await until('the next alert on both', () => here.received.length === 2 && there.received.length >= 1)
      expect(there.received.map(swapOf)).toEqual([hashFor('o-2')])
      expect(there.received[0]!.id).toBe(here.received[1]!.id)
    } finally {
      await other.close()
    }
  })

  it('answers a malformed Last-Event-ID or parameter with a JSON 400 naming it', async () => {
    const header = await getJson(`${api.baseUrl}/stream/alerts`, { headers: { 'last-event-id': 'yesterday' } })
    expect(header.status).toBe(400)
    expect(header.body).toMatchObject({ status: 'error', message: expect.stringContaining('Last-Event-ID must be the id of an event of this stream') })
    const cases: Array<[string, string]> = [
      ['last_event_id=12', 'last_event_id'],
      ['last_event_id=12-1', 'last_event_id'],
      ['last_event_id=0-0', 'last_event_id'],
      ['token=0x12', 'token'],
      ['rule_id=', 'rule_id'],
      ['since=1', 'since'],
    ]
    for (const [query, name] of cases) {
      const res = await getJson(`${api.baseUrl}/stream/alerts?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body).toMatchObject({ status: 'error', message: expect.stringContaining(name) })
    }
  })

  it('restarts from now, after a reset event, from an id beyond the stored alerts', async () => {
    const ahead = stream('', { lastEventId: `999999999-${'0'.repeat(32)}` })
    await until('the reset', () => ahead.received.length === 1)
    expect(ahead.received[0]).toMatchObject({ event: 'reset', id: expect.stringMatching(/^\d+-0$/), data: { reason: 'ahead' } })
    await buy('after-ahead', TOKEN_A)
    await until('the alert', () => ahead.received.length === 2)
    expect(swapOf(ahead.received[1]!)).toBe(hashFor('after-ahead'))
  })

  it('restarts from now, after a reset event, when what followed the id is older than the stream sends again', async () => {
    const first = stream()
    await first.opened
    await buy('e-1', TOKEN_A)
    const [seen] = await until('the alert', () => first.received.length === 1 && first.received)
    // A firing version stored after it, written by an evaluator whose clock read 40 days ago.
    const old = Date.now() - 40 * DAY_MS
    const stale: AlertFiring = {
      id: firingId(ruleA.id, { token: TOKEN_A, windowStart: old }),
      rule_id: ruleA.id,
      kind: 'wallet_trade',
      token: TOKEN_A,
      wallet_address: WALLET,
      window_start: 0,
      window_end: 0,
      value: 1,
      swap_keys: [],
      swaps: [],
      status: 'fired',
      sequence: old * 1000,
      fired_at: old,
      retracted_at: null,
    }
    await new AlertFiringsStore(rt.clickhouse, rt.tables).write([stale], old)
    // Once the process's stream has passed it (a client resuming from an id restarts where the stream is).
    await until('the stale version', () => first.received.length === 2)
    expect(first.received[1]!.data).toMatchObject({ id: stale.id, fired_at: old })
    const late = stream('', { lastEventId: seen!.id })
    await until('the reset', () => late.received.length === 1)
    expect(late.received[0]).toMatchObject({ event: 'reset', data: { reason: 'expired' } })
    await buy('after-expiry', TOKEN_A)
    await until('the alert', () => late.received.length === 2)
    expect(swapOf(late.received[1]!)).toBe(hashFor('after-expiry'))
  })

  it('answers HEAD with the headers alone, sends heartbeats, and ends streams with closed at shutdown', async () => {
    const head = await fetch(`${api.baseUrl}/stream/alerts`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')

    const other = await startTestApi(rt)
    const socket = connect(Number(new URL(other.baseUrl).port), '127.0.0.1')
    let text = ''
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')))
    socket.write('GET /stream/alerts HTTP/1.1\r\nHost: x\r\n\r\n')
    await until('a heartbeat', () => text.includes(': heartbeat\n\n'))
    expect(text).toMatch(/^HTTP\/1\.1 200/)
    expect(text).toContain('retry: 1000\n\n')
    const ended = new Promise((r) => socket.once('end', r))
    await other.close()
    await ended
    expect(text.slice(text.lastIndexOf('event: '))).toMatch(/^event: closed\ndata: \{"reason":"shutdown"/)
  })

  it('is not offered on a ClickHouse cluster: a JSON 404 saying so, parameters checked first', async () => {
    const onCluster = await startApiServer({ ...rt, config: { ...rt.config, storage: { ...rt.config.storage, cluster: 'test_cluster' } } }, 0, '127.0.0.1')
    try {
      const base = `http://127.0.0.1:${onCluster.port}`
      const res = await getJson(`${base}/stream/alerts`)
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ status: 'error', message: expect.stringContaining('not offered on a ClickHouse cluster') })
      expect((await getJson(`${base}/stream/alerts?token=x`)).status).toBe(400)
    } finally {
      await onCluster.close()
    }
  })
})
