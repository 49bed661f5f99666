import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getWalletProfile, listTrackedWallets } from '../api/contract/endpoints/smart-money.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, tradeRow, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const DAY = 86_400_000
const NOW = Date.now()
const E18 = 10n ** 18n
const usdc = addressFor('merged-usdc')
const tok = addressFor('merged-tok')
const [alice, dave, erin] = ['alice', 'dave', 'erin'].map((n) => addressFor(`merged-${n}`)) as [string, string, string]

let n = 0
function trade(wallet: string, side: 'buy' | 'sell', tokens: number, usd: number, daysAgo: number): SwapRowInput {
  return tradeRow({
    hash: hashFor(`merged-${n++}`),
    timestamp: NOW - daysAgo * DAY,
    wallet,
    side,
    token: { address: tok, amount: (BigInt(tokens) * E18).toString() },
    quote: { address: usdc, amount: String(usd * 1_000_000) },
    usd,
  })
}

const RULES = [{ id: 'top-1-pnl-30d', kind: 'top', window: '30d', measure: 'realized_pnl_usd', count: 1 }]

/**
 * wallet_stats and the positions keep only each key's latest run once their parts merge, so
 * the rows of a run that a newer one has replaced can be gone while the API still answers
 * from that run's tracked set (it does until the newer run's set is built). What the API
 * reads from the store then must come from the newer run, not read as nothing.
 */
describe('wallet reads while a newer run replaces the served one', () => {
  let rt: TestRuntime
  let api: TestApi
  let newerRunAt: number

  beforeAll(async () => {
    rt = await createTestRuntime({ SMART_MONEY_RULES: JSON.stringify(RULES), WALLET_STATS_REFRESH_MS: '0' })
    await insertSwaps(rt, [
      // alice: +100, tracked (top 1)
      trade(alice, 'buy', 10, 100, 20),
      trade(alice, 'sell', 10, 200, 10),
      // dave: +20, not tracked
      trade(dave, 'buy', 10, 100, 20),
      trade(dave, 'sell', 10, 120, 5),
      // erin: holds 10 bought at $100, not tracked
      trade(erin, 'buy', 10, 100, 3),
    ])
    await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    api = await startTestApi(rt)
    // The first run's tracked set is built and answering.
    expect((await getJson(`${api.baseUrl}/wallets`)).status).toBe(200)
    // A newer run, then merges that keep only its rows, as the background merges would.
    const newer = await storeWalletStats(rt.clickhouse, rt.tables, NOW + 1_000)
    newerRunAt = newer.computedAtMs
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.walletStats} FINAL` })
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.walletPositions} FINAL` })
    // Past the API's one-second look at the latest run: it knows of the newer run, and answers from the first run's set while it builds the newer one's.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
  }, 120_000)
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it("a wallet outside the tracked set is read from the newer run, with its figures and open positions", async () => {
    const [daves, erins] = [await getJson(`${api.baseUrl}/wallets/${dave}`), await getJson(`${api.baseUrl}/wallets/${erin}`)]
    for (const res of [daves, erins]) expect(getWalletProfile.success.schema.safeParse(res.body).success, JSON.stringify(res.body)).toBe(true)
    expect(daves.body.result.windows['30d']).toMatchObject({ trades: 2, realized_pnl_usd: 20 })
    expect(daves.body.result.computed_at).toBe(new Date(newerRunAt).toISOString())
    expect(erins.body.result.open_positions).toBe(1)
    expect(erins.body.result.windows.all.trades).toBe(1)
  })

  it('a tracked wallet keeps its figures, and its open positions are valued', async () => {
    const list = await getJson(`${api.baseUrl}/wallets?window=all`)
    expect(listTrackedWallets.success.schema.safeParse(list.body).success).toBe(true)
    expect(list.body.result).toMatchObject([{ wallet_address: alice, labels: ['top-1-pnl-30d'], stats: { realized_pnl_usd: 100 }, unrealized_pnl_usd: 0 }])
    const profile = await getJson(`${api.baseUrl}/wallets/${alice}`)
    expect(profile.body.result.windows['30d']).toMatchObject({ trades: 2, realized_pnl_usd: 100 })
    expect(profile.body.result.labels).toEqual(['top-1-pnl-30d'])
  })
})
