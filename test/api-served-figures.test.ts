import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertHoldings, insertSwaps, insertTokens, tradeRow } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const DAY = 86_400_000
const NOW = Date.now()
const E18 = 10n ** 18n
/** Trade values whose float sums carry noise: 0.1 + 0.2 is 0.30000000000000004. */
const BUYS = [0.1, 0.2]
const SELL = 0.4
const noisy = (values: number[]) => values.reduce((sum, v) => sum + v, 0)
const clean = (value: number) => Number(value.toPrecision(12))

/** Every number in a JSON value, with where it is. */
function numbersIn(value: unknown, at = '$'): [string, number][] {
  if (typeof value === 'number') return [[at, value]]
  if (Array.isArray(value)) return value.flatMap((v, i) => numbersIn(v, `${at}[${i}]`))
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => numbersIn(v, `${at}.${k}`))
  return []
}

/**
 * The smart-money figures are served as the candles are: to 12 significant digits, since
 * the digits past them are the noise of summing doubles (`436569.82999999996`), not data.
 */
describe('served figures carry no floating-point noise', () => {
  let rt: TestRuntime
  let api: TestApi
  const dir = mkdtempSync(join(tmpdir(), 'served-figures-'))
  const wallet = addressFor('figures-wallet')
  const tok = addressFor('figures-tok')
  const usdc = addressFor('figures-usdc')
  let n = 0
  const trade = (side: 'buy' | 'sell', tokens: bigint, usd: number, daysAgo: number) =>
    tradeRow({
      hash: hashFor(`figures-${n++}`),
      timestamp: NOW - daysAgo * DAY,
      wallet,
      side,
      token: { address: tok, amount: (tokens * E18).toString() },
      quote: { address: usdc, amount: String(Math.round(usd * 1_000_000)) },
      usd,
    })

  beforeAll(async () => {
    const file = join(dir, 'wallets.txt')
    writeFileSync(file, `${wallet} Noisy\n`)
    rt = await createTestRuntime({ TRACKED_WALLETS_FILE: file, WALLET_STATS_REFRESH_MS: '0' })
    await insertTokens(rt, [{ contract_address: tok, name: 'Figures', symbol: 'FIG', decimals: 18 }])
    await insertSwaps(rt, [trade('buy', 1n, BUYS[0]!, 3), trade('buy', 2n, BUYS[1]!, 2), trade('sell', 3n, SELL, 1)])
    await insertHoldings(rt, [
      { wallet_address: wallet, contract_address: tok, balance_raw: '1', value_usd: BUYS[0]! },
      { wallet_address: wallet, contract_address: usdc, balance_raw: '1', value_usd: BUYS[1]! },
    ])
    await storeWalletStats(rt.clickhouse, rt.tables, NOW)
    api = await startTestApi(rt)
  }, 120_000)
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  const read = async (path: string) => {
    const res = await getJson(`${api.baseUrl}${path}`)
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200)
    return res.body
  }
  const flowsPath = `/tokens/${tok}/flows?start_time=${NOW - 4 * DAY}&end_time=${NOW}`

  it('the data is noisy: the sums of these values as doubles are not their 12-digit forms', () => {
    expect(noisy(BUYS)).not.toBe(clean(noisy(BUYS)))
    expect(noisy([...BUYS, SELL])).not.toBe(clean(noisy([...BUYS, SELL])))
  })

  it('a known noisy sum is served clean: volume, cost, PnL, flows, holdings total', async () => {
    const list = await read('/wallets?window=30d')
    const listed = list.result.find((w: { wallet_address: string }) => w.wallet_address === wallet)
    expect(listed.stats.volume_usd).toBe(clean(noisy([...BUYS, SELL])))
    expect(listed.stats.closed_cost_usd).toBe(clean(noisy(BUYS)))
    expect(listed.stats.realized_pnl_usd).toBe(clean(SELL - noisy(BUYS)))

    const profile = await read(`/wallets/${wallet}`)
    expect(profile.result.windows['30d'].volume_usd).toBe(clean(noisy([...BUYS, SELL])))
    expect(profile.result.windows['30d'].roi).toBe(clean((SELL - noisy(BUYS)) / noisy(BUYS)))

    const flows = await read(flowsPath)
    expect(flows.result.bought.value_usd).toBe(clean(noisy(BUYS)))
    expect(flows.result.net.value_usd).toBe(clean(noisy(BUYS) - SELL))

    const holdings = await read(`/wallets/${wallet}/holdings`)
    expect(holdings.summary.total_value_usd).toBe(clean(noisy(BUYS)))
  })

  it('every number served by the smart-money reads and wallet views has at most 12 significant digits', async () => {
    const bodies = await Promise.all([
      read('/wallets'),
      read('/wallets?window=all&sort=volume'),
      read(`/wallets/${wallet}`),
      read(flowsPath),
      read(`/wallets/${wallet}/holdings`),
    ])
    const figures = bodies.flatMap((body) => numbersIn(body))
    expect(figures.length).toBeGreaterThan(50)
    for (const [at, value] of figures) expect(value, at).toBe(clean(value))
  })
})
