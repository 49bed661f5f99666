import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getSmartMoneyRules, getWalletProfile, listTrackedWallets } from '../api/contract/endpoints/smart-money.js'
import { startWalletStatsRefresher } from '../indicators/wallet-stats-refresher.js'
import { latestWalletStatsRun, storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, tradeRow, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const DAY = 86_400_000
const NOW = Date.now()
const E18 = 10n ** 18n
const usdc = addressFor('sm-usdc')
const tok = addressFor('sm-tok')
const [alice, bob, carol, dave, erin, frank] = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'].map((n) => addressFor(`sm-${n}`)) as [string, string, string, string, string, string]

let n = 0
function trade(wallet: string, side: 'buy' | 'sell', tokens: number, usd: number, daysAgo: number): SwapRowInput {
  return tradeRow({
    hash: hashFor(`sm-${n++}`),
    timestamp: NOW - daysAgo * DAY,
    wallet,
    side,
    token: { address: tok, amount: (BigInt(tokens) * E18).toString() },
    quote: { address: usdc, amount: String(usd * 1_000_000) },
    usd,
  })
}

const RULES = [
  { id: 'smart-trader-90d', kind: 'threshold', window: '90d', min_trades: 3, min_realized_pnl_usd: 100, min_win_rate: 0.6 },
  { id: 'top-2-pnl-30d', kind: 'top', window: '30d', measure: 'realized_pnl_usd', count: 2 },
]

/**
 * GET /wallets, /wallets/:address and /smart-money/rules over real HTTP, on statistics
 * stored from real swaps: the tracked set is the listed wallets and the rules' passers,
 * each label with its evidence; the file is re-read after an edit, without a restart.
 */
describe('smart money over HTTP', () => {
  let rt: TestRuntime
  let api: TestApi
  const dir = mkdtempSync(join(tmpdir(), 'tracked-wallets-'))
  const file = join(dir, 'wallets.txt')

  beforeAll(async () => {
    writeFileSync(file, `# analysts' list\n${carol.toUpperCase().replace('0X', '0x')} Carol the careful\nnot-an-address\n`)
    rt = await createTestRuntime({ TRACKED_WALLETS_FILE: file, SMART_MONEY_RULES: JSON.stringify(RULES), WALLET_STATS_REFRESH_MS: '0' })
    await insertSwaps(rt, [
      // alice: +150, +100 over 90 days, 3 trades, 2 wins of 2 → smart trader, top by 30-day PnL
      trade(alice, 'buy', 10, 100, 20),
      trade(alice, 'sell', 5, 200, 15),
      trade(alice, 'sell', 5, 150, 10),
      // bob: +50 → second by 30-day PnL; 2 trades → not a smart trader
      trade(bob, 'buy', 10, 100, 20),
      trade(bob, 'sell', 10, 150, 5),
      // carol: -60, listed in the file
      trade(carol, 'buy', 10, 100, 20),
      trade(carol, 'sell', 10, 40, 5),
      // dave: +20 → third: outside the top 2
      trade(dave, 'buy', 10, 100, 20),
      trade(dave, 'sell', 10, 120, 5),
    ])
    await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    api = await startTestApi(rt)
  }, 120_000)
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  const wallets = async (query = '') => {
    const res = await getJson(`${api.baseUrl}/wallets${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return listTrackedWallets.success.schema.parse(res.body)
  }

  it('GET /wallets: the listed wallets and the rules\' passers, with labels and the evidence behind each', async () => {
    const body = await wallets()
    expect(body.result.map((w) => [w.wallet_address, w.labels])).toEqual([
      [alice, ['smart-trader-90d', 'top-2-pnl-30d']],
      [bob, ['top-2-pnl-30d']],
      [carol, ['listed']],
    ])
    expect(body.pagination).toEqual({ total: 3, limit: 50, offset: 0 })
    expect(body.summary.window).toBe('90d')
    const a = body.result[0]!
    expect(a.stats).toMatchObject({ trades: 3, realized_pnl_usd: 250, closed_cost_usd: 100, roi: 2.5, win_rate: 1, positions_reduced: 2 })
    expect(a.evidence.find((e) => e.rule === 'smart-trader-90d')!.checks).toEqual([
      { measure: 'trades', operator: '>=', required: 3, value: 3, passes: true },
      { measure: 'realized_pnl_usd', operator: '>=', required: 100, value: 250, passes: true },
      { measure: 'win_rate', operator: '>=', required: 0.6, value: 1, passes: true },
    ])
    expect(body.result[1]!.evidence).toEqual([
      {
        rule: 'top-2-pnl-30d',
        window: '30d',
        passes: true,
        checks: [
          { measure: 'realized_pnl_usd', operator: '>', required: 0, value: 50, passes: true },
          { measure: 'rank_by_realized_pnl_usd', operator: '<=', required: 2, value: 2, passes: true },
        ],
      },
    ])
    expect(body.result[2]).toMatchObject({ name: 'Carol the careful', evidence: [], stats: { realized_pnl_usd: -60, win_rate: 0 } })
  })

  it('GET /wallets sorts, filters by label and pages', async () => {
    expect((await wallets('?sort=pnl&order=asc')).result.map((w) => w.wallet_address)).toEqual([carol, bob, alice])
    expect((await wallets('?sort=roi')).result.map((w) => w.wallet_address)).toEqual([alice, bob, carol])
    expect((await wallets('?label=listed')).result.map((w) => w.wallet_address)).toEqual([carol])
    expect((await wallets('?label=top-2-pnl-30d&window=30d')).result.map((w) => w.wallet_address)).toEqual([alice, bob])
    const page = await wallets('?limit=1&offset=1')
    expect(page.result.map((w) => w.wallet_address)).toEqual([bob])
    expect(page.pagination).toEqual({ total: 3, limit: 1, offset: 1 })
    // a label no rule gives is an error, not an empty page
    const typo = await getJson(`${api.baseUrl}/wallets?label=top-2-pnl`)
    expect(typo.status).toBe(400)
    expect(typo.body.message).toBe('label: no such label "top-2-pnl"; the labels are listed, smart-trader-90d, top-2-pnl-30d')
    for (const bad of ['?sort=luck', '?window=7d', '?limit=0', '?colour=red']) {
      const res = await getJson(`${api.baseUrl}/wallets${bad}`)
      expect(res.status, bad).toBe(400)
      expect(res.body).toMatchObject({ status: 'error', message: expect.any(String) })
    }
  })

  it('GET /wallets/:address: every window, and why each rule passes or fails', async () => {
    const res = await getJson(`${api.baseUrl}/wallets/${dave.toUpperCase().replace('0X', '0x')}`)
    expect(res.status).toBe(200)
    expect(getWalletProfile.success.schema.safeParse(res.body).success).toBe(true)
    const body = res.body
    expect(body.result.wallet_address).toBe(dave)
    expect(body.result.labels).toEqual([])
    expect(body.result.windows['30d']).toMatchObject({ trades: 2, realized_pnl_usd: 20 })
    expect(body.result.windows.all).toMatchObject({ trades: 2, realized_pnl_usd: 20, unmatched_proceeds_usd: 100 })
    expect(body.result.rules).toEqual([
      {
        rule: 'smart-trader-90d',
        window: '90d',
        passes: false,
        checks: [
          { measure: 'trades', operator: '>=', required: 3, value: 2, passes: false },
          { measure: 'realized_pnl_usd', operator: '>=', required: 100, value: 20, passes: false },
          { measure: 'win_rate', operator: '>=', required: 0.6, value: 1, passes: true },
        ],
      },
      {
        rule: 'top-2-pnl-30d',
        window: '30d',
        passes: false,
        checks: [
          { measure: 'realized_pnl_usd', operator: '>', required: 0, value: 20, passes: true },
          { measure: 'rank_by_realized_pnl_usd', operator: '<=', required: 2, value: 3, passes: false },
        ],
      },
    ])
    const alices = (await getJson(`${api.baseUrl}/wallets/${alice}`)).body
    expect(alices.result.labels).toEqual(['smart-trader-90d', 'top-2-pnl-30d'])
    // any address is a wallet: zeros, no labels
    const nobody = (await getJson(`${api.baseUrl}/wallets/${addressFor('sm-nobody')}`)).body
    expect(getWalletProfile.success.schema.safeParse(nobody).success).toBe(true)
    expect(nobody.result.windows.all).toMatchObject({ trades: 0, realized_pnl_usd: 0, win_rate: null, first_trade: null })
    expect(nobody.result.labels).toEqual([])
    const bad = await getJson(`${api.baseUrl}/wallets/0x123`)
    expect(bad.status).toBe(400)
    expect(bad.body.status).toBe('error')
  })

  it('GET /smart-money/rules: the rules as data, the file and the latest computation', async () => {
    const res = await getJson(`${api.baseUrl}/smart-money/rules`)
    expect(res.status).toBe(200)
    expect(getSmartMoneyRules.success.schema.safeParse(res.body).success).toBe(true)
    const body = res.body
    expect(body.result.rules.map((r: { id: string }) => r.id)).toEqual(['smart-trader-90d', 'top-2-pnl-30d'])
    expect(body.result.rules[0]!.description).toContain('at least 3 trades')
    expect(body.result.tracked_wallets_file).toEqual({ configured: true, wallets: 1, problems: [{ line: 3, reason: 'not an address: "not-an-address"' }] })
    expect(body.result.statistics.wallets).toBe(4)
  })

  it('an edit of the tracked-wallets file is served without a restart', async () => {
    writeFileSync(file, `${carol}\n${erin}   Erin (new)\n`)
    const body = await wallets('?label=listed')
    // by PnL: erin's 0 before carol's -60
    expect(body.result.map((w) => [w.wallet_address, w.name])).toEqual([
      [erin, 'Erin (new)'],
      [carol, null],
    ])
    // erin has no swaps: listed, with zero statistics
    expect(body.result[0]!.stats).toMatchObject({ trades: 0, realized_pnl_usd: 0 })
  })

  it('the refresher stores a new run when swaps arrive, and the reads follow it', async () => {
    const before = (await latestWalletStatsRun(rt.clickhouse, rt.tables))!
    await insertSwaps(rt, [trade(dave, 'buy', 10, 100, 2), trade(dave, 'sell', 10, 1100, 1)])
    const refresher = startWalletStatsRefresher({ clickhouse: rt.clickhouse, tables: rt.tables, logger: rt.logger, intervalMs: 50, maxAgeMs: 3_600_000 })
    try {
      await expect.poll(async () => (await latestWalletStatsRun(rt.clickhouse, rt.tables))!.computedAtMs, { timeout: 60_000, interval: 200 }).toBeGreaterThan(before.computedAtMs)
    } finally {
      await refresher.stop()
    }
    // The new run's set is read in the background: the previous one answers meanwhile.
    const latest = (await latestWalletStatsRun(rt.clickhouse, rt.tables))!
    await expect.poll(async () => (await wallets('?window=30d')).summary.computed_at, { timeout: 10_000, interval: 50 }).toBe(new Date(latest.computedAtMs).toISOString())
    const body = await wallets('?window=30d&label=top-2-pnl-30d')
    // dave: +20 and +1000 over 30 days: now first
    expect(body.result.map((w) => w.wallet_address)).toEqual([dave, alice])
  })

  it('open positions are valued when read, at each token\'s latest price: on the profile and on the list', async () => {
    writeFileSync(file, `${frank} Frank holds\n`)
    // frank holds 10 tok bought for $100; the latest priced tok leg is dave's sell a day ago: $110 a token
    await insertSwaps(rt, [trade(frank, 'buy', 10, 100, 3)])
    // The reads follow a new run once its set is read (in the background: the previous one answers meanwhile).
    const profileOfRun = async (computedAtMs: number) => {
      const at = new Date(computedAtMs).toISOString()
      await expect.poll(async () => (await getJson(`${api.baseUrl}/wallets/${frank}`)).body.result.computed_at, { timeout: 10_000, interval: 50 }).toBe(at)
      return (await getJson(`${api.baseUrl}/wallets/${frank}`)).body.result
    }
    const run = await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    expect(await profileOfRun(run.computedAtMs)).toMatchObject({ unrealized_pnl_usd: 1000, open_positions: 1 })
    expect((await wallets('?label=listed')).result.map((w) => [w.wallet_address, w.unrealized_pnl_usd])).toEqual([[frank, 1000]])
    // a later buy of tok at $200 a token moves its mark: the next run's reads value frank's 10 at it
    await insertSwaps(rt, [trade(bob, 'buy', 10, 2000, 0.5)])
    const next = await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    expect(await profileOfRun(next.computedAtMs)).toMatchObject({ unrealized_pnl_usd: 1900, open_positions: 1 })
    expect((await wallets('?label=listed')).result.map((w) => [w.wallet_address, w.unrealized_pnl_usd])).toEqual([[frank, 1900]])
  })
})
