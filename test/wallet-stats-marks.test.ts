import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { walletStatsOfRun } from '../shared/smart-money/compute-wallet-stats.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { DAY, expectSameWallets, HOUR, statSwapOf } from './support/wallet-stats-cases.js'

const T0 = Date.UTC(2026, 4, 1)
const TOKEN = addressFor('marked-token')
const USD = addressFor('marks-usd')
const A = addressFor('marks-a')
const B = addressFor('marks-b')

/**
 * An open position is valued at its token's mark, the price of the token's latest priced
 * leg of any wallet, which runs store (shared/smart-money/marks.ts): an incremental run
 * moves a mark only later, unless a late swap took the token's latest priced leg away.
 */
describe('wallet statistics: the marks open positions are valued at', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  const buy = (label: string, wallet: string, at: number, tokens: number, usd: number | null): SwapRowInput => ({
    hash: hashFor(label),
    wallet_address: wallet,
    timestamp: at,
    token_sold_address: USD,
    token_sold_amount: String(usd === null ? 1 : usd),
    token_bought_address: TOKEN,
    token_bought_amount: String(tokens),
    value_usd: usd,
    ingested_at: at + 1000,
  })

  /**
   * The swaps a test delivered and still live, and a run compared with the reference over
   * them. A run's clock is two seconds after its time, as the swaps' stamps are a second
   * after theirs.
   */
  function scenario() {
    const live = new Map<string, SwapRowInput>()
    const deliver = async (rows: SwapRowInput[]) => {
      await insertSwaps(rt, rows)
      for (const r of rows) live.set(r.hash, r)
    }
    const statsAt = async (asOf: number) => {
      const run = await updateWalletStats(rt.clickhouse, rt.tables, asOf, asOf + 2_000)
      expect(run.kind).toBe('incremental')
      const got = await walletStatsOfRun(rt.clickhouse, rt.tables, run)
      expectSameWallets(got, referenceWalletStats([...live.values()].map(statSwapOf), asOf), `as of ${asOf}`)
      return new Map(got.map((s) => [s.wallet, s.unrealizedPnlUsd]))
    }
    const retract = async (swap: SwapRowInput, at: number) => {
      await rt.clickhouse.insert({
        table: rt.tables.swapMoves,
        values: [
          {
            hash: swap.hash,
            chain_id: 1,
            timestamp: dateTime64Param(swap.timestamp),
            wallet_address: swap.wallet_address,
            token_sold_address: swap.token_sold_address,
            token_bought_address: swap.token_bought_address,
            superseded_at: dateTime64Param(at),
          },
        ],
        format: 'JSONEachRow',
      })
      live.delete(swap.hash)
    }
    return { deliver, statsAt, retract }
  }

  it('stay the latest priced leg through a run that brings only older candidates, and go back when that leg is retracted', async () => {
    const { deliver, statsAt, retract } = scenario()

    // A buys 10 at $1, then B 10 at $2: the mark is $2
    const early = buy('a-early', A, T0, 10, 10)
    const later = buy('b-later', B, T0 + HOUR, 10, 20)
    await deliver([early, later])
    await storeWalletStats(rt.clickhouse, rt.tables, T0 + 2 * HOUR, T0 + 2 * HOUR + 2_000)

    // A's only new leg has no price: the run's priced legs bring no later one, the mark stays $2
    await deliver([{ ...buy('a-unpriced', A, T0 + 3 * HOUR, 1, null), ingested_at: T0 + 3 * HOUR + 1000 }])
    const moved = await statsAt(T0 + 4 * HOUR)
    expect(moved.get(A)).toBeCloseTo(10 * 2 - 10, 9)

    // B's swap is retracted: the mark is A's $1 again
    await retract(later, T0 + 4 * HOUR + 500)
    const back = await statsAt(T0 + 5 * HOUR)
    expect(back.get(A)).toBeCloseTo(10 * 1 - 10, 9)

    // a generation whose runs stored no marks (the table emptied here): the next run finds
    // every token's, so a token no new swap touches keeps its mark
    const other = addressFor('marks-other-token')
    await deliver([{ ...buy('b-other', B, T0 + 6 * HOUR, 4, 8), token_bought_address: other }])
    await statsAt(T0 + 7 * HOUR)
    await rt.clickhouse.command({ query: `TRUNCATE TABLE ${rt.tables.walletStatsMarks}` })
    await deliver([buy('b-more', B, T0 + 8 * HOUR, 1, 3)])
    const upgraded = await statsAt(T0 + 9 * HOUR)
    expect(upgraded.get(B)).toBeCloseTo(1 * 3 - 3 + (4 * 2 - 8), 9)
  })

  it('of a token without a priced leg in the last day are found in the whole history, in a full run and after a retraction', async () => {
    for (const table of [rt.tables.swaps, rt.tables.swapLocations, rt.tables.swapsByWallet, rt.tables.walletStatsMarks]) {
      await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
    }
    const { deliver, statsAt, retract } = scenario()
    // A buys 10 at $1, B 10 at $2, then A 1 without a price: the mark is B's $2, days before the runs
    const first = buy('old-a', A, T0, 10, 10)
    const second = buy('old-b', B, T0 + HOUR, 10, 20)
    await deliver([first, second, buy('old-a-unpriced', A, T0 + 2 * HOUR, 1, null)])
    const full = await storeWalletStats(rt.clickhouse, rt.tables, T0 + 5 * DAY)
    const fullA = (await walletStatsOfRun(rt.clickhouse, rt.tables, full)).find((s) => s.wallet === A)
    expect(fullA?.unrealizedPnlUsd).toBeCloseTo(10 * 2 - 10, 9)

    // B's swap is retracted: A's $1, five days old, is the mark again
    await retract(second, Date.now())
    const back = await statsAt(T0 + 6 * DAY)
    expect(back.get(A)).toBeCloseTo(10 * 1 - 10, 9)
  })
})
