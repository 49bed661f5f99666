import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenFlowsSchema } from '../api/contract/endpoints/wallets.js'
import { FeedWatch } from '../api/feed-watch.js'
import { roundValue } from '../api/number-rounding.js'
import { listSmartMoneyTokens, WINDOW_HOURS, type ScreenerWindow } from '../api/screener/screener-endpoint.js'
import { ScreenerRepository } from '../api/screener/screener-repository.js'
import { TokenFlowsRefreshGate } from '../api/token-flows-refresh-gate.js'
import { VersionedResults } from '../api/versioned-results.js'
import { startTokenFlowsRefresher } from '../indicators/token-flows-refresher.js'
import { HOUR_MS } from '../shared/platform/time-units.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { refreshTokenFlows } from '../shared/token-flows/token-flows-refresh.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { addressFor, hashFor, insertSwaps, insertTokens, tradeRow, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { spyingOnQueries } from './support/query-spy.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const MINUTE = 60_000
const DAY = 24 * HOUR_MS
const NOW = Date.now()
const E18 = 10n ** 18n

const usdc = addressFor('screener-usdc')
const [tokA, tokB, tokC] = ['a', 'b', 'c'].map((n) => addressFor(`screener-token-${n}`)) as [string, string, string]
const [alice, bob, carol, dave, eve, frank] = ['alice', 'bob', 'carol', 'dave', 'eve', 'frank'].map((n) => addressFor(`screener-${n}`)) as [
  string,
  string,
  string,
  string,
  string,
  string,
]

/** Three trades in 30 days make a wallet tracked: dave gets in by it; alice carries both labels. */
const RULES = [{ id: 'busy-30d', kind: 'threshold', window: '30d', min_trades: 3 }]

let n = 0
/** A wallet's trade of `token` against USDC, `agoMs` before NOW; every token amount above 2^64. */
function trade(wallet: string, side: 'buy' | 'sell', token: string, usd: number | null, agoMs: number): SwapRowInput {
  const i = n++
  return {
    ...tradeRow({
      hash: hashFor(`screener-${i}`),
      timestamp: NOW - agoMs,
      wallet,
      side,
      token: { address: token, amount: (BigInt(i + 1) * 1000n * E18 + 7n).toString() },
      quote: { address: usdc, amount: String(((usd ?? 1) * 1_000_000) | 0) },
      usd: usd ?? 0,
    }),
    value_usd: usd,
    // Before the re-deliveries' NOW + 1 s, however long the set-up takes: the later delivery wins.
    ingested_at: NOW - MINUTE,
  }
}

const a1 = trade(alice, 'buy', tokA, 100, 10 * MINUTE) // delivered twice
const a2 = trade(alice, 'buy', tokA, 50, 2 * HOUR_MS)
const a3 = trade(alice, 'sell', tokB, 200, 2 * DAY)
const a4 = trade(alice, 'sell', tokC, 10, 40 * DAY)
const b1 = trade(bob, 'sell', tokA, 30, 3 * HOUR_MS)
const b2 = trade(bob, 'buy', tokB, 80, 3 * DAY) // moved 40 days back
const c1 = trade(carol, 'buy', tokA, null, 5 * HOUR_MS)
const c2 = trade(carol, 'buy', tokC, 500, 20 * DAY)
const c3 = trade(carol, 'buy', tokA, 40, 6 * HOUR_MS) // re-delivered at the same time as eve's
const d1 = trade(dave, 'buy', tokA, 70, 20 * HOUR_MS)
const d2 = trade(dave, 'sell', tokA, 25, 30 * MINUTE)
const d3 = trade(dave, 'buy', tokB, 60, 4 * DAY)
const e1 = trade(eve, 'buy', tokA, 1000, 30 * MINUTE)
const f1 = trade(frank, 'buy', tokA, 7, 30 * DAY - MINUTE)

const b2Moved: SwapRowInput = { ...b2, timestamp: NOW - 40 * DAY, ingested_at: NOW + 1_000 }
const c3AsEve: SwapRowInput = { ...c3, wallet_address: eve, ingested_at: NOW + 1_000 }

/** What is stored once every delivery is in: the live versions only. */
const LIVE = [a1, a2, a3, a4, b1, b2Moved, c1, c2, c3AsEve, d1, d2, d3, e1, f1]

interface Expected {
  bought: number
  sold: number
  buyers: Set<string>
  sellers: Set<string>
  swaps: number
  withoutUsd: number
  net: Map<string, [number, number]>
}

/** The screener worked out from the live swaps: the tracked wallets' swaps in the window's hours, per token. */
function expectedScreen(live: readonly SwapRowInput[], tracked: ReadonlySet<string>, window: ScreenerWindow, now: number): Map<string, Expected> {
  const lastHour = Math.floor(now / HOUR_MS)
  const firstHour = lastHour - WINDOW_HOURS[window]
  const tokens = new Map<string, Expected>()
  for (const s of live) {
    const hour = Math.floor(s.timestamp / HOUR_MS)
    if (hour < firstHour || hour > lastHour || !tracked.has(s.wallet_address!)) continue
    for (const [token, side] of [
      [s.token_bought_address!, 'buy'],
      [s.token_sold_address!, 'sell'],
    ] as const) {
      const e = tokens.get(token) ?? { bought: 0, sold: 0, buyers: new Set(), sellers: new Set(), swaps: 0, withoutUsd: 0, net: new Map() }
      const usd = s.value_usd ?? 0
      const [b, sd] = e.net.get(s.wallet_address!) ?? [0, 0]
      if (side === 'buy') {
        e.bought += usd
        e.buyers.add(s.wallet_address!)
        e.net.set(s.wallet_address!, [b + usd, sd])
      } else {
        e.sold += usd
        e.sellers.add(s.wallet_address!)
        e.net.set(s.wallet_address!, [b, sd + usd])
      }
      e.swaps++
      if (s.value_usd === null) e.withoutUsd++
      tokens.set(token, e)
    }
  }
  return tokens
}

interface ScreenedJson {
  token: { contract_address: string; symbol: string | null }
  bought_value_usd: number
  sold_value_usd: number
  net_flow_usd: number
  volume_usd: number
  buyers: number
  sellers: number
  swaps: number
  swaps_without_usd: number
  top_wallets: { wallet_address: string; name: string | null; labels: string[]; net_value_usd: number }[]
}

/**
 * GET /smart-money/tokens over real HTTP on the embedded store: the tracked wallets' flows
 * per token from the stored token flows, which follow the change feed (a re-delivered swap
 * counted once, a retracted one not at all, a later swap seen at the next request), kept
 * in memory until a swap is stored or the hour turns; and GET /tokens/:address/flows over
 * 30 days, read by the hour and exact to the digit.
 */
describe('the smart-money screener', () => {
  let rt: TestRuntime
  let api: TestApi
  let flowReads = 0
  const dir = mkdtempSync(join(tmpdir(), 'screener-wallets-'))
  const file = join(dir, 'wallets.txt')
  const tracked = new Set([alice, bob, carol, dave])
  const live = [...LIVE]

  const counting = (client: ClickHouseClient) =>
    spyingOnQueries(client, (sql) => {
      if (sql.includes(rt.tables.tokenWalletHourFlows)) flowReads++
    })

  beforeAll(async () => {
    writeFileSync(file, `${alice} Alice\n${bob}\n${carol} Carol\n`)
    rt = await createTestRuntime({ TRACKED_WALLETS_FILE: file, SMART_MONEY_RULES: JSON.stringify(RULES), WALLET_STATS_REFRESH_MS: '0' })
    await insertTokens(rt, [
      { contract_address: usdc, symbol: 'USDC', decimals: 6 },
      { contract_address: tokA, symbol: 'AAA', decimals: 18 },
      { contract_address: tokB, symbol: 'BBB', decimals: 18 },
    ])
    await insertSwaps(rt, [a1, a2, a3, a4, b1, b2, c1, c2, c3, d1, d2, d3, e1, f1])
    await insertSwaps(rt, [a1, b2Moved, c3AsEve])
    await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    api = await startTestApi({ ...rt, clickhouse: counting(rt.clickhouse) })
  }, 120_000)

  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  const screen = async (query = '') => {
    const res = await getJson(`${api.baseUrl}/smart-money/tokens${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const body = listSmartMoneyTokens.success.schema.parse(res.body)
    return { ...body, result: body.result as ScreenedJson[] }
  }

  const matchesReference = (result: ScreenedJson[], window: ScreenerWindow) => {
    const expected = expectedScreen(live, tracked, window, Date.now())
    expect(result.map((t) => t.token.contract_address).sort()).toEqual([...expected.keys()].sort())
    for (const t of result) {
      const e = expected.get(t.token.contract_address)!
      const top = [...e.net]
        .map(([wallet, [b, s]]) => [wallet, b - s] as const)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .slice(0, 3)
      expect(t).toMatchObject({
        bought_value_usd: roundValue(e.bought),
        sold_value_usd: roundValue(e.sold),
        net_flow_usd: roundValue(e.bought - e.sold),
        volume_usd: roundValue(e.bought + e.sold),
        buyers: e.buyers.size,
        sellers: e.sellers.size,
        swaps: e.swaps,
        swaps_without_usd: e.withoutUsd,
      })
      expect(t.top_wallets.map((w) => [w.wallet_address, w.net_value_usd])).toEqual(top.map(([w, net]) => [w, roundValue(net)]))
    }
  }

  it("sums the tracked wallets' swaps of the last 24 hours per token, exactly, with the top three wallets and their labels", async () => {
    const body = await screen()
    expect(body.summary).toMatchObject({ window: '24h', sort: 'net_flow', tracked_wallets: 4 })
    const lastHour = Math.floor(Date.now() / HOUR_MS)
    expect(Date.parse(body.summary.start_time)).toBe((lastHour - 24) * HOUR_MS)
    expect(Date.parse(body.summary.end_time)).toBe((lastHour + 1) * HOUR_MS - 1)
    expect(body.pagination).toEqual({ total: 2, limit: 50, offset: 0 })
    const [a, quote] = body.result
    // alice bought 100 (delivered twice, counted once) and 50, carol once without a USD value
    // (her other swap now eve's, untracked, as is eve's 1,000), dave 70 and sold 25, bob sold 30.
    expect(a).toEqual({
      token: { id: tokA, name: 'Test Token', symbol: 'AAA', decimals: 18, contract_address: tokA },
      bought_value_usd: 220,
      sold_value_usd: 55,
      net_flow_usd: 165,
      volume_usd: 275,
      buyers: 3,
      sellers: 2,
      swaps: 6,
      swaps_without_usd: 1,
      top_wallets: [
        { wallet_address: alice, name: 'Alice', labels: ['listed', 'busy-30d'], net_value_usd: 150, bought_value_usd: 150, sold_value_usd: 0 },
        { wallet_address: dave, name: null, labels: ['busy-30d'], net_value_usd: 45, bought_value_usd: 70, sold_value_usd: 25 },
        { wallet_address: carol, name: 'Carol', labels: ['listed'], net_value_usd: 0, bought_value_usd: 0, sold_value_usd: 0 },
      ],
    })
    expect(quote).toMatchObject({ token: { contract_address: usdc, symbol: 'USDC' }, bought_value_usd: 55, sold_value_usd: 220, net_flow_usd: -165, buyers: 2, sellers: 3 })
    matchesReference(body.result, '24h')
  })

  it('answers each window over its whole hours, the tracked wallets only', async () => {
    for (const window of ['1h', '24h', '7d', '30d'] as const) {
      const body = await screen(`?window=${window}`)
      expect(body.summary.window).toBe(window)
      matchesReference(body.result, window)
    }
    // The last hour and the one before: alice's 100 and dave's 25 (eve's 1,000 is not tracked).
    const hour = (await screen('?window=1h')).result.find((t) => t.token.contract_address === tokA)!
    expect([hour.bought_value_usd, hour.sold_value_usd, hour.buyers, hour.sellers]).toEqual([100, 25, 1, 1])
    // bob's buy of BBB moved 40 days back: 7 days show alice's sell and dave's buy only.
    const week = (await screen('?window=7d')).result.find((t) => t.token.contract_address === tokB)!
    expect([week.bought_value_usd, week.sold_value_usd, week.buyers, week.sellers]).toEqual([60, 200, 1, 1])
    // A token without metadata is named by its address, as in swaps and holdings.
    const month = (await screen('?window=30d')).result.find((t) => t.token.contract_address === tokC)!
    expect(month.token).toEqual({ id: tokC, name: null, symbol: null, decimals: null, contract_address: tokC })
    expect(month.bought_value_usd).toBe(500)
  })

  it('sorts by net flow, buyers or volume, largest first, then by address; pages with limit and offset', async () => {
    const order = (result: ScreenedJson[]) => result.map((t) => t.token.contract_address)
    const byAddress = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
    const week = await screen('?window=7d')
    const sortedBy = (value: (t: ScreenedJson) => number) => [...week.result].sort((x, y) => value(y) - value(x) || byAddress(x.token.contract_address, y.token.contract_address))
    expect(order(week.result)).toEqual(order(sortedBy((t) => t.net_flow_usd)))
    expect(order((await screen('?window=7d&sort=buyers')).result)).toEqual(order(sortedBy((t) => t.buyers)))
    expect(order((await screen('?window=7d&sort=volume')).result)).toEqual(order(sortedBy((t) => t.volume_usd)))
    // Over 7 days: AAA +165, BBB -140, USDC -25.
    expect(order(week.result)).toEqual([tokA, usdc, tokB])
    const second = await screen('?window=7d&limit=1&offset=1')
    expect(order(second.result)).toEqual([usdc])
    expect(second.pagination).toEqual({ total: 3, limit: 1, offset: 1 })
    expect((await screen('?window=7d&offset=3')).result).toEqual([])
  })

  it('answers a repeated request from memory, and the next request after new swaps from the refreshed flows', async () => {
    await screen('?window=24h&sort=volume')
    const before = flowReads
    await screen('?window=24h&sort=volume')
    await screen('?window=24h&sort=buyers&limit=1')
    expect(flowReads).toBe(before)

    // bob buys 500 of AAA; dave's sell is retracted (re-delivered as frank's, untracked).
    const b3 = trade(bob, 'buy', tokA, 500, MINUTE)
    const d2AsFrank: SwapRowInput = { ...d2, wallet_address: frank, ingested_at: Date.now() + 1_000 }
    await insertSwaps(rt, [b3, d2AsFrank])
    live.push(b3)
    live.splice(live.indexOf(d2), 1, d2AsFrank)
    const started = performance.now()
    const body = await screen()
    const ms = performance.now() - started
    expect(flowReads).toBeGreaterThan(before)
    const a = body.result.find((t) => t.token.contract_address === tokA)!
    expect(a).toMatchObject({ bought_value_usd: 720, sold_value_usd: 30, net_flow_usd: 690, buyers: 4, sellers: 1 })
    expect(a.top_wallets.map((w) => [w.wallet_address, w.net_value_usd])).toEqual([
      [bob, 470],
      [alice, 150],
      [dave, 70],
    ])
    matchesReference(body.result, '24h')
    // A refresh and the read, on the test store: well under a second.
    expect(ms).toBeLessThan(5_000)
  })

  it('turns the hour: the window moves and is computed anew, then kept', async () => {
    let now = Date.now()
    let reads = 0
    const client = spyingOnQueries(rt.clickhouse, (sql) => {
      if (sql.includes(rt.tables.tokenWalletHourFlows)) reads++
    })
    const feed = new FeedWatch(client, rt.tables)
    const screener = new ScreenerRepository(client, rt.tables, new VersionedResults(feed, ['swap']), new TokenFlowsRefreshGate(client, rt.tables), () => now)
    const scope = { key: 'tracked', wallets: [...tracked].sort(), shown: () => ({ name: null, labels: [] }) }
    const first = await screener.screen('1h', 'net_flow', scope)
    const read = reads
    expect(await screener.screen('1h', 'volume', scope)).toMatchObject({ firstHour: first.firstHour })
    expect(reads).toBe(read)
    now += 2 * HOUR_MS
    const later = await screener.screen('1h', 'net_flow', scope)
    expect(later.firstHour).toBe(first.firstHour + 2)
    expect(reads).toBeGreaterThan(read)
    // Two hours on, the last 10 minutes' swaps are out of the 1-hour window.
    expect(later.tokens).toEqual([])
  })

  it('refuses a malformed or unknown parameter with a 400 naming it', async () => {
    const cases: [string, string][] = [
      ['window=2h', 'window'],
      ['window=', 'window'],
      ['sort=pnl', 'sort'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['offset=-1', 'offset'],
      ['window=1h&window=24h', 'window'],
      ['order=asc', 'order'],
    ]
    for (const [query, name] of cases) {
      const { status, body } = await getJson(`${api.baseUrl}/smart-money/tokens?${query}`)
      expect(status, query).toBe(400)
      expect(body.status).toBe('error')
      expect(body.message, query).toContain(name)
    }
  })

  it("GET /tokens/:address/flows answers 30 days, its whole hours from the stored flows, every digit as the swaps give it", async () => {
    const check = async (startMs: number, endMs: number) => {
      const res = await getJson(`${api.baseUrl}/tokens/${tokA}/flows?start_time=${startMs}&end_time=${endMs}&top=100`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const flows = tokenFlowsSchema.parse(res.body.result)
      const inWindow = live.filter((s) => s.timestamp >= startMs && s.timestamp <= endMs && (s.token_bought_address === tokA || s.token_sold_address === tokA))
      const buys = inWindow.filter((s) => s.token_bought_address === tokA)
      const sells = inWindow.filter((s) => s.token_sold_address === tokA)
      const raw = (rows: SwapRowInput[], field: 'token_bought_amount' | 'token_sold_amount') => rows.reduce((sum, s) => sum + BigInt(s[field]!), 0n)
      const usd = (rows: SwapRowInput[]) => rows.reduce((sum, s) => sum + (s.value_usd ?? 0), 0)
      expect(flows.swaps).toBe(inWindow.length)
      expect(flows.swaps_without_usd).toBe(inWindow.filter((s) => s.value_usd === null).length)
      expect(flows.bought).toMatchObject({ amount_raw: raw(buys, 'token_bought_amount').toString(), value_usd: roundValue(usd(buys)), swaps: buys.length })
      expect(flows.sold).toMatchObject({ amount_raw: raw(sells, 'token_sold_amount').toString(), value_usd: roundValue(usd(sells)), swaps: sells.length })
      expect(flows.bought.wallets).toBe(new Set(buys.map((s) => s.wallet_address)).size)
      expect(flows.net.amount_raw).toBe((raw(buys, 'token_bought_amount') - raw(sells, 'token_sold_amount')).toString())
      return flows
    }
    // Exactly 30 days, ending now: frank's buy in the first, partial hour, the newest swaps in the last.
    const month = await check(NOW - 30 * DAY, NOW)
    expect(month.swaps).toBe(10)
    const frankFlow = [...month.top_buyers, ...month.top_sellers].find((w) => w.wallet_address === frank)
    expect(frankFlow?.bought_amount_raw).toBe(f1.token_bought_amount)
    // Edges that cut hours anywhere, and a window of whole hours only.
    await check(NOW - 30 * DAY + 1, NOW - 7 * MINUTE)
    const hour = Math.floor(NOW / HOUR_MS) * HOUR_MS
    await check(hour - 29 * DAY, hour - 1)
    await check(NOW - 4 * HOUR_MS, NOW - 3 * HOUR_MS + 1)
    const tooLong = await getJson(`${api.baseUrl}/tokens/${tokA}/flows?start_time=${NOW - 30 * DAY - 1}&end_time=${NOW}`)
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.message).toContain('30 days')
  })

  /** The stored flows as reads see them (FINAL), without the version. */
  const storedFlows = () =>
    queryRows<{ token: string; wallet_address: string } & Record<string, unknown>>(
      rt.clickhouse,
      `SELECT token, hour, wallet_address, swaps, swaps_without_usd, buys, sells, toString(bought_raw) AS bought_raw, toString(sold_raw) AS sold_raw, bought_usd, sold_usd
       FROM ${rt.tables.tokenWalletHourFlows} FINAL ORDER BY token, hour, wallet_address`,
    )

  it("the indicators role's refresher keeps the stored flows current without a read; a rebuild stores the same rows", async () => {
    const refresher = startTokenFlowsRefresher({ clickhouse: rt.clickhouse, tables: rt.tables, logger: rt.logger, intervalMs: 20 })
    try {
      const late = trade(carol, 'sell', tokB, 5, 2 * HOUR_MS)
      await insertSwaps(rt, [late])
      const hour = Math.floor(late.timestamp / HOUR_MS)
      const carolsHour = async () =>
        queryRows<{ sold_usd: number }>(
          rt.clickhouse,
          `SELECT sold_usd FROM ${rt.tables.tokenWalletHourFlows} FINAL WHERE token = {token:String} AND hour = {hour:UInt32} AND wallet_address = {wallet:String}`,
          { token: tokB, hour, wallet: carol },
        )
      await expect.poll(carolsHour, { timeout: 10_000, interval: 20 }).toEqual([{ sold_usd: 5 }])
    } finally {
      await refresher.stop()
    }
    const kept = await storedFlows()
    expect(kept.length).toBeGreaterThan(0)
    // Run again: nothing changes. Without a recorded position, every bucket is rebuilt from the swaps.
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(false)
    expect(await storedFlows()).toEqual(kept)
    // Rows no swap gives (a wrong sum, a bucket without swaps) are corrected and retracted by it.
    const bogus = { swaps: 1, swaps_without_usd: 0, buys: 0, sells: 1, bought_raw: '0', sold_raw: '1', bought_usd: 0, sold_usd: 999, computed_at: Date.now() - 5 }
    await rt.clickhouse.insert({
      table: rt.tables.tokenWalletHourFlows,
      values: [
        { ...bogus, token: tokB, hour: Math.floor((NOW - 2 * HOUR_MS) / HOUR_MS), wallet_address: carol },
        { ...bogus, token: addressFor('screener-no-swaps'), hour: 1, wallet_address: carol },
      ],
      format: 'JSONEachRow',
    })
    expect(await storedFlows()).not.toEqual(kept)
    await rt.clickhouse.command({ query: `TRUNCATE TABLE ${rt.tables.changePositions}` })
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(true)
    expect(await storedFlows()).toEqual(kept)
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(false)
  })

  it('reading on from the feed stores what a rebuild stores, through moves and same-time variants of a new wallet or token', async () => {
    const [tokE, tokF] = ['e', 'f'].map((n) => addressFor(`screener-token-${n}`)) as [string, string]
    await refreshTokenFlows(rt.clickhouse, rt.tables)
    const x1 = trade(alice, 'buy', tokE, 7, 5 * HOUR_MS)
    const x2 = trade(bob, 'sell', tokE, 8, 5 * HOUR_MS)
    const x3 = trade(carol, 'buy', tokE, 9, 5 * HOUR_MS)
    await insertSwaps(rt, [x1, x2, x3])
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(false)
    const later = { ingested_at: NOW + 2_000 }
    await insertSwaps(rt, [
      { ...x1, ...later, wallet_address: frank },
      { ...trade(bob, 'sell', tokF, 8, 5 * HOUR_MS), hash: x2.hash, timestamp: x2.timestamp, ...later },
      { ...x3, ...later, timestamp: x3.timestamp - 3 * HOUR_MS },
    ])
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(false)
    const readOn = await storedFlows()
    const tokenE = readOn.filter((r) => r.token === tokE)
    expect(tokenE.map((r) => r.wallet_address).sort()).toEqual([carol, frank].sort())
    await rt.clickhouse.command({ query: `TRUNCATE TABLE ${rt.tables.changePositions}` })
    expect((await refreshTokenFlows(rt.clickhouse, rt.tables)).rebuilt).toBe(true)
    expect(await storedFlows()).toEqual(readOn)
  })

  it('of two refreshes at once, the rows that win cover every swap of the position recorded', async () => {
    const tokD = addressFor('screener-token-d')
    const hourStart = Math.floor((Date.now() - 3 * HOUR_MS) / HOUR_MS) * HOUR_MS
    const inHour = (row: SwapRowInput, minute: number): SwapRowInput => ({ ...row, timestamp: hourStart + minute * MINUTE })
    await insertSwaps(rt, [inHour(trade(alice, 'buy', tokD, 11, 0), 1)])
    // The first refresh starts, then waits before it takes the feed's position.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const slow = heldBeforeQuery(rt.clickhouse, 'system.parts', held)
    const first = refreshTokenFlows(slow.client, rt.tables)
    await slow.reached
    // A second one starts later and reads the bucket before alice's next buy is stored.
    await refreshTokenFlows(rt.clickhouse, rt.tables)
    await insertSwaps(rt, [inHour(trade(alice, 'buy', tokD, 22, 0), 2)])
    release()
    await first
    await refreshTokenFlows(rt.clickhouse, rt.tables)
    const rows = await queryRows<{ buys: number; bought_usd: number }>(
      rt.clickhouse,
      `SELECT buys, bought_usd FROM ${rt.tables.tokenWalletHourFlows} FINAL WHERE token = {token:String} AND wallet_address = {wallet:String}`,
      { token: tokD, wallet: alice },
    )
    expect(rows).toEqual([{ buys: 2, bought_usd: 33 }])
  })
})

/** `client` with each query whose SQL contains `marker` held until `held` settles; `reached` settles when the first one is. */
function heldBeforeQuery(client: ClickHouseClient, marker: string, held: Promise<void>): { client: ClickHouseClient; reached: Promise<void> } {
  let reach!: () => void
  const reached = new Promise<void>((resolve) => (reach = resolve))
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      const method = (value as (...a: unknown[]) => Promise<unknown>).bind(target)
      if (prop !== 'query') return method
      return async (...args: unknown[]) => {
        if ((args[0] as { query: string }).query.includes(marker)) {
          reach()
          await held
        }
        return method(...args)
      }
    },
  })
  return { client: proxy, reached }
}
