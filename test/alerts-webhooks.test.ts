import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listAlerts } from '../api/contract/endpoints/alerts.js'
import { startAlerts } from '../indicators/alert-runner.js'
import { swapRetractionRows } from '../ingest/pipeline/swap-retractions.js'
import { feedPosition, recordedPosition } from '../shared/changes/change-feed.js'
import { ALERTS_CONSUMER } from '../shared/alerts/alert-evaluation.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { publishTrackedGeneration } from '../shared/smart-money/tracked-generations.js'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { addressFor, hashFor, insertSwaps, tradeRow } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Alerts end to end on the real store, Redis and HTTP: rules created over the admin API,
 * swaps stored through the swaps' write path, the evaluator reading the change feed, and a
 * node:http receiver verifying every delivery with standardwebhooks' Webhook.verify.
 */

const ADMIN = 'admin-token-alerts-webhooks-0123'
const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
const TRACKED = [1, 2, 3, 4].map((i) => addressFor(`alerts-sm-${i}`))
const OUTSIDER = addressFor('alerts-outsider')
const QUOTE = { address: addressFor('alerts-usdc'), amount: '1000000' }
const HOUR = Date.UTC(2026, 0, 5, 10)

interface Received {
  path: string
  id: string
  body: { type: string; timestamp: string; data: Record<string, any> }
  verified: boolean
  status: number
}

/** A webhook receiver: per path, the secret it verifies with and whether it is up (200) or down (500). */
class Receiver {
  readonly secrets = new Map<string, string>()
  readonly down = new Set<string>()
  readonly received: Received[] = []
  private server!: Server
  url = ''

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const path = req.url ?? ''
        let verified = false
        try {
          new Webhook(this.secrets.get(path) ?? 'whsec_AAAA').verify(text, req.headers as Record<string, string>)
          verified = true
        } catch {
          verified = false
        }
        const status = !verified ? 400 : this.down.has(path) ? 500 : 200
        this.received.push({ path, id: String(req.headers['webhook-id']), body: JSON.parse(text), verified, status })
        res.writeHead(status).end()
      })
    })
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  delivered(path: string): Received[] {
    return this.received.filter((r) => r.path === path && r.status === 200)
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('alerts', () => {
  let rt: TestRuntime
  let api: TestApi
  let queues: QueueFactory
  let alerts: { stop(): Promise<void> }
  const receiver = new Receiver()

  const send = (method: string, path: string, body?: unknown) =>
    getJson(`${api.baseUrl}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  /** Creates a rule whose webhook posts to `path` on the receiver (with the secret given, or one generated); returns the rule as created. */
  async function rule(body: Record<string, unknown>, path: string, to: { receiver: Receiver; url: string; secret?: string } = { receiver, url: receiver.url }): Promise<any> {
    const webhook = { url: `${to.url}${path}`, ...(to.secret ? { secret: to.secret } : {}) }
    const res = await send('POST', '/admin/alerts', { ...body, webhooks: [webhook] })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    to.receiver.secrets.set(path, res.body.result.webhooks[0].secret)
    return res.body.result
  }

  function trade(label: string, wallet: string, side: 'buy' | 'sell', token: string, usd: number, at: number) {
    return tradeRow({ hash: hashFor(label), timestamp: at, wallet, side, token: { address: token, amount: '5000000000000000000' }, quote: QUOTE, usd })
  }

  /** Retracts a stored swap with the rows ingestion writes for a swap_retraction record. */
  async function retractSwap(row: ReturnType<typeof trade>): Promise<void> {
    const record = { hash: row.hash, chain_id: 1, timestamp: row.timestamp, wallet_address: row.wallet_address, token_sold_address: row.token_sold_address, token_bought_address: row.token_bought_address }
    const { rows, rejected } = swapRetractionRows([record], rt.tables, Date.now())
    expect(rejected).toEqual([])
    if (!('rows' in rows) || typeof rows.table !== 'string') throw new Error('a swap retraction is rows of one table')
    await rt.clickhouse.insert({ table: rows.table, values: [...rows.rows], format: 'JSONEachRow' })
  }

  beforeAll(async () => {
    await receiver.start()
    rt = await createTestRuntime({ ADMIN_TOKEN: ADMIN })
    await publishTrackedGeneration(rt.clickhouse, rt.tables, TRACKED, null, null)
    api = await startTestApi(rt)
    queues = new QueueFactory(rt.config, rt.logger)
    alerts = startAlerts({
      clickhouse: rt.clickhouse,
      tables: rt.tables,
      logger: rt.logger,
      queues,
      trackedWalletsFile: null,
      pollMs: 50,
      retries: { attempts: 6, backoffMs: 100 },
      sender: { timeoutMs: 2_000 },
    })
    // Its first step starts at the feed's head: wait for it, so the swaps below come after.
    await waitFor('the evaluator to start', async () => {
      const rs = await rt.clickhouse.query({ query: `SELECT count() AS n FROM ${rt.tables.changePositions} WHERE consumer = {c:String}`, query_params: { c: ALERTS_CONSUMER }, format: 'JSONEachRow' })
      return Number((await rs.json<{ n: string }>())[0]?.n) > 0 ? true : undefined
    })
  })
  afterAll(async () => {
    await alerts?.stop()
    await queues?.close()
    await api?.close()
    await rt?.cleanup()
    await receiver.close()
  })

  it('wallet_trade fires for a tracked wallet at the threshold, with the swap as signed evidence, and not below it', async () => {
    const token = addressFor('alerts-trade-token')
    const r = await rule({ name: 'big trades', kind: 'wallet_trade', token, min_value_usd: 1000 }, '/trade')
    // A rule listing its wallets, without a token (the benchmark's shape).
    const given = `whsec_${Buffer.alloc(32, 5).toString('base64')}`
    const listed = await rule({ name: 'outsider', kind: 'wallet_trade', wallets: [OUTSIDER], min_value_usd: 0 }, '/listed', { receiver, url: receiver.url, secret: given })
    expect(listed.webhooks[0].secret).toBe(given)
    await insertSwaps(rt, [
      trade('t-fire', TRACKED[0]!, 'buy', token, 5000, HOUR + 1000),
      trade('t-below', TRACKED[1]!, 'buy', token, 999.99, HOUR + 2000),
      trade('t-untracked', OUTSIDER, 'buy', token, 9000, HOUR + 3000),
      trade('t-other-token', TRACKED[2]!, 'buy', addressFor('alerts-other'), 9000, HOUR + 4000),
    ])
    const [got] = await waitFor('the trade alert', () => (receiver.delivered('/trade').length > 0 ? receiver.delivered('/trade') : undefined))
    expect(got!.verified).toBe(true)
    expect(got!.id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(got!.body.type).toBe('alert.fired')
    expect(got!.body.data).toMatchObject({ rule_id: r.id, rule_name: 'big trades', kind: 'wallet_trade', status: 'fired', token, wallet_address: TRACKED[0], value_usd: 5000 })
    expect(got!.body.data.evidence.swap_keys).toEqual([`1:${hashFor('t-fire')}`])
    expect(got!.body.data.evidence.swaps[0]).toMatchObject({ hash: hashFor('t-fire'), wallet_address: TRACKED[0], token_bought_address: token, value_usd: 5000, timestamp: HOUR + 1000 })
    const [outsider] = await waitFor('the listed wallet alert', () => (receiver.delivered('/listed').length > 0 ? receiver.delivered('/listed') : undefined))
    expect(outsider!.body.data).toMatchObject({ rule_id: listed.id, wallet_address: OUTSIDER, value_usd: 9000 })
    await sleep(400)
    expect(receiver.received.filter((x) => x.path === '/trade')).toHaveLength(1)
    expect(receiver.received.filter((x) => x.path === '/listed')).toHaveLength(1)
    // Paused, it fires no more.
    expect((await send('PATCH', `/admin/alerts/${listed.id}`, { active: false })).body.result.active).toBe(false)
  })

  it('buyers fires once the distinct tracked buyers in a window reach N, once per window', async () => {
    const token = addressFor('alerts-buyers-token')
    await rule({ name: 'crowd', kind: 'buyers', token, min_wallets: 3, window: '1h' }, '/buyers')
    await insertSwaps(rt, [
      trade('b-1', TRACKED[0]!, 'buy', token, 10, HOUR + 60_000),
      trade('b-1-again', TRACKED[0]!, 'buy', token, 10, HOUR + 70_000),
      trade('b-2', TRACKED[1]!, 'buy', token, 10, HOUR + 120_000),
      trade('b-sell', TRACKED[2]!, 'sell', token, 10, HOUR + 130_000),
      trade('b-outsider', OUTSIDER, 'buy', token, 10, HOUR + 140_000),
      // The third buyer, but in the next hour.
      trade('b-next-hour', TRACKED[2]!, 'buy', token, 10, HOUR + 3_600_000 + 1),
    ])
    await sleep(400)
    expect(receiver.received.filter((x) => x.path === '/buyers')).toHaveLength(0)
    await insertSwaps(rt, [trade('b-3', TRACKED[3]!, 'buy', token, 10, HOUR + 180_000)])
    const [got] = await waitFor('the buyers alert', () => (receiver.delivered('/buyers').length > 0 ? receiver.delivered('/buyers') : undefined))
    expect(got!.body.data).toMatchObject({ kind: 'buyers', token, buyers: 3, window: { start: HOUR, end: HOUR + 3_600_000 }, wallet_address: null })
    expect(new Set(got!.body.data.evidence.swaps.map((s: any) => s.hash))).toEqual(new Set(['b-1', 'b-1-again', 'b-2', 'b-3'].map(hashFor)))
    // A fourth buyer in the same window does not fire again.
    await insertSwaps(rt, [trade('b-4', TRACKED[2]!, 'buy', token, 10, HOUR + 240_000)])
    await sleep(400)
    expect(receiver.received.filter((x) => x.path === '/buyers')).toHaveLength(1)
  })

  it('net_inflow fires when bought minus sold USD in a window reaches Y', async () => {
    const token = addressFor('alerts-inflow-token')
    await rule({ name: 'inflow', kind: 'net_inflow', token, min_inflow_usd: 10_000, window: '1h' }, '/inflow')
    await insertSwaps(rt, [
      trade('n-1', TRACKED[0]!, 'buy', token, 6000, HOUR + 60_000),
      trade('n-2', TRACKED[1]!, 'sell', token, 1000, HOUR + 120_000),
      trade('n-outsider', OUTSIDER, 'buy', token, 50_000, HOUR + 130_000),
    ])
    await sleep(400)
    expect(receiver.received.filter((x) => x.path === '/inflow')).toHaveLength(0)
    await insertSwaps(rt, [trade('n-3', TRACKED[2]!, 'buy', token, 5000, HOUR + 180_000)])
    const [got] = await waitFor('the inflow alert', () => (receiver.delivered('/inflow').length > 0 ? receiver.delivered('/inflow') : undefined))
    expect(got!.body.data).toMatchObject({ kind: 'net_inflow', token, net_inflow_usd: 10_000 })
    expect(got!.body.data.evidence.swaps.map((s: any) => s.hash)).toEqual(['n-1', 'n-2', 'n-3'].map(hashFor))
  })

  it('serves the firings on GET /alerts, paged and filtered', async () => {
    const all = await getJson(`${api.baseUrl}/alerts?limit=2`)
    expect(all.status).toBe(200)
    expect(all.body.pagination).toEqual({ total: 4, limit: 2, offset: 0 })
    const conforms = listAlerts.success.schema.safeParse(all.body)
    expect(conforms.success ? 'conforms' : conforms.error.message).toBe('conforms')
    const next = await getJson(`${api.baseUrl}/alerts?limit=2&offset=2`)
    const ids = [...all.body.result, ...next.body.result].map((f: any) => f.id)
    expect(new Set(ids).size).toBe(4)
    // Newest first: the inflow firing came last.
    expect(all.body.result[0].kind).toBe('net_inflow')

    const token = addressFor('alerts-buyers-token')
    const byToken = await getJson(`${api.baseUrl}/alerts?token=${token.toUpperCase().replace('0X', '0x')}`)
    expect(byToken.body.result.map((f: any) => f.kind)).toEqual(['buyers'])
    // The evidence as stored: the window's buys by watched wallets, with their keys.
    const evidence = byToken.body.result[0].evidence
    expect(new Set(evidence.swaps.map((s: any) => s.hash))).toEqual(new Set(['b-1', 'b-1-again', 'b-2', 'b-3'].map(hashFor)))
    expect(evidence.swap_keys).toEqual(evidence.swaps.map((s: any) => `1:${s.hash}`))
    const ruleId = all.body.result[0].rule_id
    const byRule = await getJson(`${api.baseUrl}/alerts?rule_id=${ruleId}`)
    expect(byRule.body.pagination.total).toBe(1)
    const firedAt = all.body.result[0].fired_at
    expect((await getJson(`${api.baseUrl}/alerts?since=${firedAt}`)).body.result.map((f: any) => f.id)).toContain(all.body.result[0].id)
    expect((await getJson(`${api.baseUrl}/alerts?until=${firedAt}`)).body.result.map((f: any) => f.id)).not.toContain(all.body.result[0].id)
    expect((await getJson(`${api.baseUrl}/alerts?since=yesterday`)).status).toBe(400)
    const unknown = await getJson(`${api.baseUrl}/alerts?rule=1`)
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toMatch(/"rule"/)
    expect((await getJson(`${api.baseUrl}/alerts?token=0x12`)).body.message).toMatch(/token/)
  })

  it('reading the feed again stores and delivers nothing twice', async () => {
    const before = (await getJson(`${api.baseUrl}/alerts`)).body.pagination.total
    const sent = receiver.received.length
    await rt.clickhouse.command({
      query: `INSERT INTO ${rt.tables.changePositions} (consumer, position, recorded_at) VALUES ({c:String}, 0, {at:DateTime64(3, 'UTC')})`,
      query_params: { c: ALERTS_CONSUMER, at: dateTime64Param(Date.now() + 1) },
    })
    // Something new in the feed, so the evaluator looks again (from 0).
    await insertSwaps(rt, [trade('re-read', addressFor('alerts-nobody'), 'buy', addressFor('alerts-nothing'), 1, HOUR)])
    const head = await feedPosition(rt.clickhouse, rt.tables)
    await waitFor('the evaluator to read the feed again', async () => ((await recordedPosition(rt.clickhouse, rt.tables, ALERTS_CONSUMER))! >= head ? true : undefined))
    await sleep(300)
    expect((await getJson(`${api.baseUrl}/alerts`)).body.pagination.total).toBe(before)
    expect(receiver.received.length).toBe(sent)
  })

  it('a receiver down, then back, gets each firing once, in order', async () => {
    const token = addressFor('alerts-flaky-token')
    receiver.down.add('/flaky')
    await rule({ name: 'flaky', kind: 'wallet_trade', token }, '/flaky')
    for (const i of [1, 2, 3]) await insertSwaps(rt, [trade(`f-${i}`, TRACKED[0]!, 'buy', token, i, HOUR + i * 1000)])
    await waitFor('two refused attempts', () => (receiver.received.filter((x) => x.path === '/flaky').length >= 2 ? true : undefined))
    receiver.down.delete('/flaky')
    const got = await waitFor('three deliveries', () => (receiver.delivered('/flaky').length >= 3 ? receiver.delivered('/flaky') : undefined))
    await sleep(400)
    expect(receiver.delivered('/flaky').map((x) => x.body.data.evidence.swaps[0].hash)).toEqual([1, 2, 3].map((i) => hashFor(`f-${i}`)))
    expect(new Set(got.map((x) => x.id)).size).toBe(3)
    // While the first was refused, the later ones waited behind it.
    const refused = receiver.received.filter((x) => x.path === '/flaky' && x.status === 500)
    expect(new Set(refused.map((x) => x.id))).toEqual(new Set([got[0]!.id]))
    expect(refused.every((x) => x.verified)).toBe(true)
  })

  it('a receiver not listening, then listening, gets each firing once, in order', async () => {
    const token = addressFor('alerts-offline-token')
    // A port with nothing on it: the first attempts are refused connections.
    const late = new Receiver()
    await late.start()
    const url = late.url
    await late.close()
    const r = await rule({ name: 'offline', kind: 'wallet_trade', token }, '/offline', { receiver: late, url })
    for (const i of [1, 2, 3]) await insertSwaps(rt, [trade(`o-${i}`, TRACKED[3]!, 'buy', token, i, HOUR + i * 1000)])
    await waitFor('a retried first delivery', async () => {
      const res = await send('GET', '/admin/alerts/deliveries?status=delayed&limit=500')
      return res.body.result.some((d: any) => d.rule_id === r.id && d.attempts_made >= 2) ? true : undefined
    })
    await late.start(Number(new URL(url).port))
    try {
      const got = await waitFor('three deliveries', () => (late.delivered('/offline').length >= 3 ? late.delivered('/offline') : undefined))
      await sleep(400)
      expect(late.received.every((x) => x.verified && x.status === 200)).toBe(true)
      expect(late.received.map((x) => x.body.data.evidence.swaps[0].hash)).toEqual([1, 2, 3].map((i) => hashFor(`o-${i}`)))
      expect(new Set(got.map((x) => x.id)).size).toBe(3)
    } finally {
      await late.close()
    }
  })

  it('a delivery whose attempts are spent is listed as failed, and a re-drive sends it with the same id', async () => {
    const token = addressFor('alerts-dead-token')
    receiver.down.add('/dead')
    const r = await rule({ name: 'dead', kind: 'wallet_trade', token }, '/dead')
    await insertSwaps(rt, [trade('d-1', TRACKED[1]!, 'buy', token, 50, HOUR + 5000)])
    const failed = await waitFor('the failed delivery', async () => {
      const res = await send('GET', '/admin/alerts/deliveries?status=failed')
      return res.body.result.find((d: any) => d.rule_id === r.id)
    })
    expect(failed).toMatchObject({ state: 'failed', event: 'alert.fired', attempts_made: 6, failed_reason: 'the receiver answered 500' })
    expect(receiver.received.filter((x) => x.path === '/dead').map((x) => x.id)).toEqual(Array(6).fill(failed.id))
    receiver.down.delete('/dead')
    const redriven = await send('POST', `/admin/alerts/deliveries/${failed.id}/redrive`)
    expect(redriven.status).toBe(202)
    const [got] = await waitFor('the re-driven delivery', () => (receiver.delivered('/dead').length > 0 ? receiver.delivered('/dead') : undefined))
    expect(got!.id).toBe(failed.id)
    expect(got!.verified).toBe(true)
    expect((await send('POST', `/admin/alerts/deliveries/${failed.id}/redrive`)).status).toBe(400)
    expect((await send('POST', '/admin/alerts/deliveries/msg_nope/redrive')).status).toBe(404)
    expect((await send('GET', '/admin/alerts/deliveries?status=lost')).status).toBe(400)
  }, 30_000)

  it('a retracted swap marks its firing retracted and delivers alert.retracted', async () => {
    const token = addressFor('alerts-retract-token')
    const r = await rule({ name: 'retract', kind: 'wallet_trade', token }, '/retract')
    const row = trade('r-1', TRACKED[2]!, 'buy', token, 70, HOUR + 7000)
    await insertSwaps(rt, [row])
    const [fired] = await waitFor('the firing', () => (receiver.delivered('/retract').length > 0 ? receiver.delivered('/retract') : undefined))
    await retractSwap(row)
    const retracted = await waitFor('the retraction', () => receiver.delivered('/retract').find((x) => x.body.type === 'alert.retracted'))
    expect(retracted.verified).toBe(true)
    expect(retracted.id).not.toBe(fired!.id)
    expect(retracted.body.data).toMatchObject({ id: fired!.body.data.id, status: 'retracted' })
    expect(retracted.body.data.retracted_at).toBeGreaterThan(0)
    const listed = await getJson(`${api.baseUrl}/alerts?rule_id=${r.id}`)
    expect(listed.body.result).toMatchObject([{ id: fired!.body.data.id, status: 'retracted' }])
  })

  it('a windowed firing is retracted only when its window falls below the threshold without the retracted swap', async () => {
    const token = addressFor('alerts-window-retract-token')
    await rule({ name: 'pair', kind: 'buyers', token, min_wallets: 2, window: '1h' }, '/window-retract')
    const rows = [0, 1, 2].map((i) => trade(`wr-${i}`, TRACKED[i]!, 'buy', token, 10, HOUR + i * 1000))
    await insertSwaps(rt, rows)
    await waitFor('the firing', () => receiver.delivered('/window-retract').find((x) => x.body.type === 'alert.fired'))
    // Two buyers remain: the firing stands.
    await retractSwap(rows[0]!)
    await sleep(400)
    expect(receiver.received.filter((x) => x.path === '/window-retract')).toHaveLength(1)
    await retractSwap(rows[1]!)
    const retracted = await waitFor('the retraction', () => receiver.delivered('/window-retract').find((x) => x.body.type === 'alert.retracted'))
    expect(retracted.body.data).toMatchObject({ kind: 'buyers', status: 'retracted', buyers: 3 })
  })
})
