import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import type { DeployedToken } from '../devnet/deploy-devnet.js'
import { WETH_PRICE_USD } from '../devnet/market.js'
import { HOUR_MS } from '../shared/platform/time-units.js'
import { getJson } from './support/http.js'
import { poolPrice } from './support/devnet-pool-prices.js'
import { startFollowerHarness, waitForCheckpoint, waitForFinalized, type FollowerHarness } from './support/follower-harness.js'

/**
 * Candles from the chain's trades: the follower sends a price record per token per swap in
 * a pool that prices it (the pool's price right after the trade), once the trade's block
 * is final. A token's hourly candle is then made of its trades: the swaps' execution
 * prices (value_usd / amount) and the pools' prices after each trade, read back here from
 * the pools' own state (reserves, sqrt price) at each trade's block.
 */
const FINALITY = 3
let h: FollowerHarness

beforeAll(async () => {
  // The chain starts three hours ago, so its trades fall in closed (served) candles.
  h = await startFollowerHarness({ FINALITY_DEPTH: String(FINALITY) }, 4, Math.floor(Date.now() / 1000) - 3 * 3600)
}, 120_000)

afterAll(async () => {
  await h?.close()
})

interface Observation {
  time: number
  /** Within the same time: a swap's price sorts before the pool price after it. */
  order: number
  price: number
}

interface Candle {
  time: number
  open: number
  high: number
  low: number
  close: number
}

/**
 * One trade in its own block, two seconds after the previous block: anvil gives blocks mined
 * within the same second the same time, and swaps of the same second sort by a hash.
 */
async function tradeApart(...args: Parameters<FollowerHarness['trade']>): Promise<Hex> {
  const latest = await h.devnet.client.getBlock()
  await h.devnet.client.setNextBlockTimestamp({ timestamp: latest.timestamp + 2n })
  return h.trade(...args)
}

async function blockOf(hash: Hex): Promise<{ number: bigint; time: number }> {
  const receipt = await h.devnet.client.getTransactionReceipt({ hash })
  const block = await h.devnet.client.getBlock({ blockNumber: receipt.blockNumber })
  return { number: receipt.blockNumber, time: Number(block.timestamp) * 1000 }
}

/** The served swap's price of `token`: its USD value over the token's amount. */
async function executionPrice(hash: Hex, token: DeployedToken): Promise<number> {
  const { status, body } = await getJson(`${h.api.baseUrl}/swap-transactions/${hash}`)
  expect(status).toBe(200)
  const swap = body.result
  const side = swap.token_sold.contract_address === token.address.toLowerCase() ? swap.token_sold : swap.token_bought
  return swap.value_usd / (Number(side.amount_raw) / 10 ** token.decimals)
}

async function hourlyCandles(token: DeployedToken): Promise<Candle[]> {
  const { status, body } = await getJson(`${h.api.baseUrl}/tokens/${token.address}/candles?interval=1h&start_time=0&end_time=${Date.now()}&limit=1000`)
  expect(status).toBe(200)
  return body.result as Candle[]
}

/** OHLC of the observations per hour, as the candles must be. */
function expectedCandles(observations: readonly Observation[]): Map<number, Omit<Candle, 'time'>> {
  const byHour = new Map<number, Observation[]>()
  for (const o of observations) {
    const hour = Math.floor(o.time / HOUR_MS) * HOUR_MS
    byHour.set(hour, [...(byHour.get(hour) ?? []), o])
  }
  const out = new Map<number, Omit<Candle, 'time'>>()
  for (const [hour, list] of byHour) {
    const sorted = [...list].sort((a, b) => a.time - b.time || a.order - b.order)
    const prices = sorted.map((o) => o.price)
    out.set(hour, { open: prices[0]!, high: Math.max(...prices), low: Math.min(...prices), close: prices[prices.length - 1]! })
  }
  return out
}

function expectCandlesOf(candles: readonly Candle[], observations: readonly Observation[]): void {
  const expected = expectedCandles(observations)
  const traded = candles.filter((c) => expected.has(c.time))
  expect(traded.length).toBe(expected.size)
  for (const c of traded) {
    const e = expected.get(c.time)!
    // Served to 12 significant digits.
    for (const k of ['open', 'high', 'low', 'close'] as const) expect(c[k] / e[k], `${k} of the candle at ${new Date(c.time).toISOString()}`).toBeCloseTo(1, 10)
  }
}

describe('follower price records', () => {
  it("makes a token's candles of its trades: execution prices and the pool's price after each trade, sent once final", async () => {
    const d = h.devnet.deployment
    const usdc = d.stablecoins[0]!
    // A token with pools against WETH only (V2 and V3): its USD price is its WETH price
    // times WETH's, which the stablecoin pools set at about $3,000 (all funded alike).
    const token = h.devnet.traders[0]!.tokens[1]!
    expect(d.pools.some((p) => p.tokenA === usdc.address && p.tokenB === token.address)).toBe(false)

    const observations: Observation[] = []
    let wethUsd = await poolPrice(h.devnet, 'v2', d.weth, usdc, await h.devnet.client.getBlockNumber())
    expect(wethUsd).toBeCloseTo(WETH_PRICE_USD, 2)
    const observe = async (hash: Hex, dex: 'v2' | 'v3', then?: () => Promise<void>) => {
      const block = await blockOf(hash)
      observations.push({ time: block.time, order: 0, price: await executionPrice(hash, token) })
      observations.push({ time: block.time, order: 1, price: (await poolPrice(h.devnet, dex, token, d.weth, block.number)) * wethUsd })
      await then?.()
    }

    // History: three trades, final before the follower starts.
    const history: Array<[Hex, 'v2' | 'v3']> = [
      [await tradeApart(0, 'v2-single', [d.weth, token], 20_000), 'v2'],
      [await tradeApart(0, 'v3-single', [token, d.weth], 8_000), 'v3'],
      // token → WETH → USDC: the token's price from its WETH pool (WETH's price unchanged),
      // then WETH's from the WETH/USDC pool, which prices the token from then on.
      [await tradeApart(0, 'v2-multi', [token, d.weth, usdc], 5_000), 'v2'],
    ]
    await h.devnet.client.mine({ blocks: FINALITY })
    const { follower } = await h.startFollower()
    await waitForCheckpoint(follower, Number(await h.devnet.client.getBlockNumber()))
    for (const [hash, dex] of history) await observe(hash, dex)
    const multiBlock = (await blockOf(history[2]![0])).number
    wethUsd = await poolPrice(h.devnet, 'v2', d.weth, usdc, multiBlock)
    // Four price records: one per swap in a pricing pool (the multi-hop's two: the token and WETH).
    expect(follower.stats.prices).toBe(4)
    expectCandlesOf(await hourlyCandles(token), observations)

    // Live: a trade is served at once; its pool price waits until its block is final.
    const live = await tradeApart(0, 'v3-single', [d.weth, token], 12_000)
    const liveBlock = await blockOf(live)
    await waitForCheckpoint(follower, Number(liveBlock.number))
    expect(follower.stats.prices).toBe(4)
    const pending: Observation[] = [...observations, { time: liveBlock.time, order: 0, price: await executionPrice(live, token) }]
    expectCandlesOf(await hourlyCandles(token), pending)

    await h.devnet.client.mine({ blocks: FINALITY })
    await waitForFinalized(follower, Number(liveBlock.number))
    expect(follower.stats.prices).toBe(5)
    const final = [...pending, { time: liveBlock.time, order: 1, price: (await poolPrice(h.devnet, 'v3', token, d.weth, liveBlock.number)) * wethUsd }]
    expectCandlesOf(await hourlyCandles(token), final)
  }, 90_000)
})
