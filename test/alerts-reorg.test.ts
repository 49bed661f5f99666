import { EventSource } from 'eventsource'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawAmount } from '../devnet/market.js'
import { tradeTx } from '../devnet/traders.js'
import { startAlerts } from '../indicators/alert-runner.js'
import { ALERTS_CONSUMER } from '../shared/alerts/alert-evaluation.js'
import { recordedPosition } from '../shared/changes/change-feed.js'
import { QueueFactory } from '../shared/platform/queue-factory.js'
import { startFollowerHarness, waitForCheckpoint, type FollowerHarness } from './support/follower-harness.js'
import { getJson } from './support/http.js'
import { WebhookReceiver } from './support/webhook-receiver.js'

/**
 * A reorg on anvil drops a block whose swap had fired an alert: the follower retracts the
 * swap, a GET /stream/swaps client (eventsource) gets its `retraction` event, and the alert
 * that depended on it turns `retracted` on GET /alerts and is posted as `alert.retracted`
 * to a receiver verifying every signature. The alert of the block the reorg kept stands.
 */
const ADMIN = 'admin-token-alerts-reorg-0123'

let h: FollowerHarness
let queues: QueueFactory
let alerts: { stop(): Promise<void> }
const receiver = new WebhookReceiver()

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

beforeAll(async () => {
  await receiver.listen()
  h = await startFollowerHarness({ FINALITY_DEPTH: '6', ADMIN_TOKEN: ADMIN }, 2)
  queues = new QueueFactory(h.runtime.config, h.runtime.logger)
  alerts = startAlerts({
    clickhouse: h.runtime.clickhouse,
    tables: h.runtime.tables,
    logger: h.runtime.logger,
    queues,
    trackedWalletsFile: null,
    pollMs: 50,
    retries: { attempts: 4, backoffMs: 100 },
    sender: { timeoutMs: 2_000 },
  })
  // Its first step starts at the feed's head: the swaps below must come after it.
  await until('the evaluator to start', async () => (await recordedPosition(h.runtime.clickhouse, h.runtime.tables, ALERTS_CONSUMER)) !== null)
}, 120_000)

afterAll(async () => {
  await alerts?.stop()
  await queues?.close()
  await h?.close()
  await receiver.close()
})

describe('alerts through a reorg', () => {
  it('retracts the alert of an orphaned swap: retraction on the stream, retracted on GET /alerts, alert.retracted to the webhook', async () => {
    const d = h.devnet.deployment
    const trader = h.devnet.traders[0]!
    const other = h.devnet.traders[1]!
    const created = await getJson(`${h.api.baseUrl}/admin/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'trader', kind: 'wallet_trade', wallets: [trader.address], webhooks: [{ url: `${receiver.url}/reorg` }] }),
    })
    expect(created.status).toBe(201)
    const rule = created.body.result
    receiver.secrets.set('/reorg', rule.webhooks[0].secret)

    const stream = new EventSource(`${h.api.baseUrl}/stream/swaps`)
    const events: Array<{ event: string; data: any }> = []
    for (const event of ['swap', 'retraction', 'reset']) stream.addEventListener(event, (e) => events.push({ event, data: JSON.parse(e.data) }))
    try {
      await new Promise<void>((resolve, reject) => {
        stream.onopen = () => resolve()
        stream.onerror = reject
      })
      const token = trader.tokens[0]!
      const kept = await h.trade(0, 'v2-single', [d.weth, token], 1_000)
      const orphan = await h.trade(0, 'v2-single', [token, d.weth], 500)
      const { follower } = await h.startFollower()
      const head = Number(await h.devnet.client.getBlockNumber())
      await waitForCheckpoint(follower, head)
      const fired = await until('both alerts delivered', () => receiver.delivered('/reorg').length === 2 && receiver.delivered('/reorg'))
      const firingOf = (hash: Hex) => fired.find((r) => r.body.data.evidence.swaps[0].hash === hash)!
      expect(fired.map((r) => r.type)).toEqual(['alert.fired', 'alert.fired'])
      await until('both swaps streamed', () => events.filter((e) => e.event === 'swap').length === 2)

      // The newest block (the orphan's trade) is replaced by one with another wallet's trade.
      const replacement = tradeTx(d, other.address, 'v2-single', [d.weth, other.tokens[0]!], rawAmount(800, d.weth))
      const request = { from: replacement.from, to: replacement.to, data: replacement.data, gas: `0x${replacement.gas.toString(16)}` }
      await h.devnet.client.request({ method: 'anvil_reorg', params: [1, [[request, 0]]] } as never)

      const retraction = await until('the retraction event', () => events.find((e) => e.event === 'retraction'))
      expect(retraction.data).toMatchObject({ chain_id: await h.devnet.client.getChainId(), hash: orphan, wallet_address: trader.address.toLowerCase() })
      const retracted = await until('alert.retracted', () => receiver.delivered('/reorg').find((r) => r.type === 'alert.retracted'))
      expect(retracted.firingId).toBe(firingOf(orphan).firingId)
      expect(retracted.id).not.toBe(firingOf(orphan).id)
      expect(retracted.body.data).toMatchObject({ status: 'retracted', retracted_at: expect.any(Number) })
      expect(receiver.received.every((r) => r.verified)).toBe(true)

      const listed = await getJson(`${h.api.baseUrl}/alerts?rule_id=${rule.id}`)
      expect(listed.status).toBe(200)
      const statusOf = new Map(listed.body.result.map((f: { id: string; status: string }) => [f.id, f.status]))
      expect(statusOf).toEqual(new Map([[firingOf(orphan).firingId, 'retracted'], [firingOf(kept).firingId, 'fired']]))
      expect(events.filter((e) => e.event === 'retraction').map((e) => e.data.hash)).toEqual([orphan])
    } finally {
      stream.close()
    }
  }, 60_000)
})
