import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * The alert rules under /admin/alerts on the real API and store: created with a secret per
 * webhook (shown once), listed, read, changed, deleted; a bad rule or webhook URL is a JSON
 * 400 naming the field, never a 500.
 */

const TOKEN = 'admin-token-alerts-0123456789'
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
const WALLET = '0x' + 'aa'.repeat(20)
const TOKEN_ADDRESS = '0x' + 'bb'.repeat(20)

describe('alert rules', () => {
  let rt: TestRuntime
  let api: TestApi
  const send = (method: string, path: string, body?: unknown) =>
    getJson(`${api.baseUrl}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  beforeAll(async () => {
    rt = await createTestRuntime({ ADMIN_TOKEN: TOKEN })
    api = await startTestApi(rt)
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('creates a rule with a whsec_ secret per webhook, then reads, lists, changes and deletes it', async () => {
    const created = await send('POST', '/admin/alerts', {
      name: 'big trades',
      kind: 'wallet_trade',
      wallets: [WALLET.toUpperCase().replace('0X', '0x')],
      min_value_usd: 1000,
      webhooks: [{ url: 'http://127.0.0.1:9/hook' }],
    })
    expect(created.status).toBe(201)
    const rule = created.body.result
    expect(rule).toMatchObject({ name: 'big trades', kind: 'wallet_trade', active: true, wallets: [WALLET], token: null, min_value_usd: 1000 })
    expect(rule.webhooks[0].secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/)
    expect(rule.webhooks[0].id).toMatch(/^wh_/)

    const read = await send('GET', `/admin/alerts/${rule.id}`)
    expect(read.status).toBe(200)
    expect(read.body.result.webhooks).toEqual([{ id: rule.webhooks[0].id, url: 'http://127.0.0.1:9/hook' }])

    const patched = await send('PATCH', `/admin/alerts/${rule.id}`, {
      min_value_usd: 5000,
      token: TOKEN_ADDRESS,
      webhooks: [{ url: 'http://127.0.0.1:9/hook' }, { url: 'https://example.com/other' }],
    })
    expect(patched.status).toBe(200)
    expect(patched.body.result).toMatchObject({ min_value_usd: 5000, token: TOKEN_ADDRESS })
    // The kept webhook keeps its id and shows no secret; the new one shows its secret once.
    expect(patched.body.result.webhooks[0]).toEqual({ id: rule.webhooks[0].id, url: 'http://127.0.0.1:9/hook' })
    expect(patched.body.result.webhooks[1].secret).toMatch(/^whsec_/)

    const replaced = await send('PUT', `/admin/alerts/${rule.id}`, { name: 'buyers', kind: 'buyers', min_wallets: 3, window: '1h' })
    expect(replaced.status).toBe(200)
    expect(replaced.body.result).toMatchObject({ kind: 'buyers', min_wallets: 3, window: '1h', window_ms: 3_600_000, webhooks: [] })

    await send('POST', '/admin/alerts', { name: 'inflow', kind: 'net_inflow', min_inflow_usd: 50_000, window: '4h' })
    const list = await send('GET', '/admin/alerts?limit=1')
    expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0 })
    expect(list.body.result[0].id).toBe(rule.id)

    expect((await send('DELETE', `/admin/alerts/${rule.id}`)).body.result).toEqual({ id: rule.id, deleted: true })
    expect((await send('GET', `/admin/alerts/${rule.id}`)).status).toBe(404)
    expect((await send('GET', '/admin/alerts')).body.pagination.total).toBe(1)
  })

  it('signs with a secret the operator gives, and shows a secret only in the response that set it', async () => {
    const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
    const created = await send('POST', '/admin/alerts', { name: 'given', kind: 'wallet_trade', webhooks: [{ url: 'https://example.com/a', secret: given }] })
    expect(created.status).toBe(201)
    const rule = created.body.result
    expect(rule.webhooks).toEqual([{ id: expect.stringMatching(/^wh_/), url: 'https://example.com/a', secret: given }])

    // Unchanged by URL: no secret shown. Given anew (a rotation): the same webhook id, its new secret shown once.
    const kept = await send('PATCH', `/admin/alerts/${rule.id}`, { name: 'given, renamed' })
    expect(kept.body.result.webhooks).toEqual([{ id: rule.webhooks[0].id, url: 'https://example.com/a' }])
    const rotated = `whsec_${Buffer.alloc(24, 9).toString('base64')}`
    const put = await send('PUT', `/admin/alerts/${rule.id}`, { name: 'given', kind: 'wallet_trade', webhooks: [{ url: 'https://example.com/a', secret: rotated }] })
    expect(put.body.result.webhooks).toEqual([{ id: rule.webhooks[0].id, url: 'https://example.com/a', secret: rotated }])
    expect((await send('GET', `/admin/alerts/${rule.id}`)).body.result.webhooks).toEqual([{ id: rule.webhooks[0].id, url: 'https://example.com/a' }])
    await send('DELETE', `/admin/alerts/${rule.id}`)
  })

  it('answers a bad rule or webhook URL with a JSON 400 naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'not a url' }] }, /webhooks\.0\.url/],
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'ftp://example.com/x' }] }, /webhooks\.0\.url/],
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'http://', secret: 'whsec_AAAA' }] }, /webhooks\.0\.url/],
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'https://example.com/x', secret: 'hunter2' }] }, /webhooks\.0\.secret/],
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'https://example.com/x', secret: 'whsec_AAAA' }] }, /webhooks\.0\.secret: must hold 24 to 64 bytes/],
      [{ name: 'x', kind: 'wallet_trade', webhooks: [{ url: 'https://example.com/x', secret: 'whsec_not base64!' }] }, /webhooks\.0\.secret/],
      [{ name: 'x', kind: 'wallet_trade', wallets: ['0x12'] }, /wallets\.0/],
      [{ name: 'x', kind: 'wallet_trade', min_value_usd: -1 }, /min_value_usd/],
      [{ name: 'x', kind: 'sideways' }, /kind/],
      [{ name: 'x' }, /kind/],
      [{ name: 'x', kind: 'buyers', min_wallets: 2 }, /window/],
      [{ name: 'x', kind: 'buyers', min_wallets: 2, window: '5 minutes' }, /window/],
      [{ name: 'x', kind: 'net_inflow', window: '1h' }, /min_inflow_usd/],
      [{ name: '', kind: 'wallet_trade' }, /name/],
      [{ name: 'x', kind: 'wallet_trade', extra: 1 }, /extra/],
      [[1, 2], /JSON object/],
    ]
    for (const [body, field] of cases) {
      const res = await send('POST', '/admin/alerts', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.status).toBe('error')
      expect(res.body.message, JSON.stringify(body)).toMatch(field)
    }
    const notJson = await getJson(`${api.baseUrl}/admin/alerts`, { method: 'POST', headers: auth, body: '{"name":' })
    expect(notJson.status).toBe(400)
    expect(notJson.body.status).toBe('error')

    const { body } = await send('POST', '/admin/alerts', { name: 'ok', kind: 'wallet_trade' })
    const bad = await send('PATCH', `/admin/alerts/${body.result.id}`, { webhooks: [{ url: 'javascript:alert(1)' }] })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/webhooks\.0\.url/)
    expect((await send('PATCH', '/admin/alerts/rule_nope', { name: 'y' })).status).toBe(404)
  })

  it('needs the admin token', async () => {
    const res = await getJson(`${api.baseUrl}/admin/alerts`)
    expect(res.status).toBe(401)
  })
})
