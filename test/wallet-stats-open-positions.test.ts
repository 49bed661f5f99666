import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPositionsOf } from '../shared/smart-money/open-positions.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { HOUR } from './support/wallet-stats-cases.js'

const T0 = Date.UTC(2026, 5, 1)
const TOKEN = addressFor('open-token')
const USD = addressFor('open-usd')
const A = addressFor('open-a')

/** A trade of A at `at` (stamped a second later), `tokens` of TOKEN for `usd` dollars. */
function trade(label: string, side: 'buy' | 'sell', at: number, tokens: number, usd: number): SwapRowInput {
  const [sold, bought] = side === 'buy' ? [[USD, usd], [TOKEN, tokens]] : [[TOKEN, tokens], [USD, usd]]
  return {
    hash: hashFor(label),
    wallet_address: A,
    timestamp: at,
    token_sold_address: String(sold[0]),
    token_sold_amount: String(sold[1]),
    token_bought_address: String(bought[0]),
    token_bought_amount: String(bought[1]),
    value_usd: usd,
    ingested_at: at + 1_000,
  }
}

/**
 * A served run's open positions are those its figures were computed with, even once a later
 * run has written its own (shared/smart-money/open-positions.ts): a reader still on the
 * earlier run (the later one not recorded yet) shows one consistent state.
 */
describe('wallet statistics: open positions as of the run they are read with', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  it('stay the served run’s after a later run sold them', async () => {
    // A buys 10 at $1; the runs' clocks are two seconds after their times, as the stamps one after the swaps'
    await insertSwaps(rt, [trade('open-buy', 'buy', T0, 10, 10)])
    const first = await storeWalletStats(rt.clickhouse, rt.tables, T0 + HOUR, T0 + HOUR + 2_000)
    // then sells them all at $3: the later run holds only the 30 dollars bought with them
    await insertSwaps(rt, [trade('open-sell', 'sell', T0 + 2 * HOUR, 10, 30)])
    const second = await updateWalletStats(rt.clickhouse, rt.tables, T0 + 3 * HOUR, T0 + 3 * HOUR + 2_000)
    expect(second.kind).toBe('incremental')

    // (the dollars at their own mark, $1: no gain)
    expect((await openPositionsOf(rt.clickhouse, rt.tables, second, [A])).get(A)).toEqual({ unrealizedPnlUsd: 0, openPositions: 1 })
    // the first run's position (10 at a cost of $10), valued at the token's latest mark ($3)
    const served = (await openPositionsOf(rt.clickhouse, rt.tables, first, [A])).get(A)
    expect(served?.openPositions).toBe(1)
    expect(served?.unrealizedPnlUsd).toBeCloseTo(10 * 3 - 10, 9)
  })
})
