import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getSmartMoneyRules, getWalletProfile } from '../api/contract/endpoints/smart-money.js'
import { DEFAULT_SMART_MONEY_RULES, type TopRule } from '../shared/platform/smart-money-settings.js'
import { rulePassers } from '../shared/smart-money/rule-passers.js'
import { latestWalletStatsRun, storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, tradeRow, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const DAY = 86_400_000
const NOW = Date.now()
const usdc = addressFor('floor-usdc')
const tok = addressFor('floor-tok')
const [fay, gus] = ['fay', 'gus'].map((n) => addressFor(`floor-${n}`)) as [string, string]

/** A trade of 10 tokens against `micros` millionths of a dollar of USDC, valued at micros / 1e6. */
function trade(wallet: string, side: 'buy' | 'sell', micros: number, daysAgo: number): SwapRowInput {
  return tradeRow({
    hash: hashFor(`floor-${wallet}-${side}`),
    timestamp: NOW - daysAgo * DAY,
    wallet,
    side,
    token: { address: tok, amount: (10n * 10n ** 18n).toString() },
    quote: { address: usdc, amount: String(micros) },
    usd: micros / 1e6,
  })
}

const TOP = DEFAULT_SMART_MONEY_RULES.find((r): r is TopRule => r.id === 'top-100-pnl-30d')!

/**
 * The default top rule ranks only realized PnL of at least a cent (min_value): a wallet whose
 * round trip left less (here $0.004, as a rounding residue of a break-even trade would) is not
 * labelled "top 100 by PnL" however few wallets made a profit, and its profile says why.
 */
describe('a top rule with a floor (min_value)', () => {
  let rt: TestRuntime
  let api: TestApi

  beforeAll(async () => {
    rt = await createTestRuntime({ WALLET_STATS_REFRESH_MS: '0' })
    await insertSwaps(rt, [
      // fay: +$0.004 over 30 days; gus: +$5
      trade(fay, 'buy', 100_000_000, 20),
      trade(fay, 'sell', 100_004_000, 5),
      trade(gus, 'buy', 100_000_000, 20),
      trade(gus, 'sell', 105_000_000, 5),
    ])
    await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    api = await startTestApi(rt)
  }, 120_000)
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('the default top rule has a floor of a cent, served with the rules', async () => {
    expect(TOP.min_value).toBe(0.01)
    const res = await getJson(`${api.baseUrl}/smart-money/rules`)
    expect(res.status).toBe(200)
    expect(getSmartMoneyRules.success.schema.safeParse(res.body).success).toBe(true)
    const served = res.body.result.rules.find((r: { id: string }) => r.id === TOP.id)
    expect(served).toMatchObject({ min_value: 0.01, description: 'The 100 wallets with the largest realized_pnl_usd over 30d, of at least 0.01' })
  })

  it('ranks only the wallets at or above the floor; without it, any positive PnL ranks', async () => {
    const run = (await latestWalletStatsRun(rt.clickhouse, rt.tables))!
    expect(await rulePassers(rt.clickhouse, rt.tables, run, TOP)).toEqual([gus])
    const { min_value: _, ...noFloor } = TOP
    expect(await rulePassers(rt.clickhouse, rt.tables, run, noFloor)).toEqual([gus, fay])

    const profile = await getJson(`${api.baseUrl}/wallets/${fay}`)
    expect(profile.status).toBe(200)
    expect(getWalletProfile.success.schema.safeParse(profile.body).success).toBe(true)
    expect(profile.body.result.labels).toEqual([])
    const verdict = profile.body.result.rules.find((r: { rule: string }) => r.rule === TOP.id)
    expect(verdict.passes).toBe(false)
    expect(verdict.checks[0]).toMatchObject({ measure: 'realized_pnl_usd', operator: '>=', required: 0.01, passes: false })
    expect(verdict.checks[0].value).toBeCloseTo(0.004, 9)
    expect(verdict.checks[1]).toMatchObject({ measure: 'rank_by_realized_pnl_usd', value: null, passes: false })

    const listed = await getJson(`${api.baseUrl}/wallets?label=${TOP.id}`)
    expect(listed.status).toBe(200)
    expect(listed.body.result.map((w: { wallet_address: string }) => w.wallet_address)).toEqual([gus])
  })
})
