import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { computeWalletStats, walletStatsOfRun } from '../shared/smart-money/compute-wallet-stats.js'
import { updateWalletStats } from '../shared/smart-money/incremental-run.js'
import { referenceWalletStats } from '../shared/smart-money/reference.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import type { StatSwap } from '../shared/smart-money/wallet-stats.js'
import { insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { DAY, expectSameWallets, HOUR, RandomSwaps, statSwapOf } from './support/wallet-stats-cases.js'

const AS_OF = Date.UTC(2026, 2, 1, 0, 0, 0)

/**
 * An incremental run (updateWalletStats) gives what a full computation gives, on random
 * sequences, after each kind of change: new swaps while the clock moves (swaps leave
 * windows), a late swap before pairs' carried positions, re-deliveries (identical, and with
 * another value), a retraction, and a move. Each step is compared with the plain TypeScript
 * reference over the live swaps, and the last one with a full computation too.
 */
describe('wallet statistics: incremental runs equal the full computation', () => {
  let rt: TestRuntime
  const SEEDS = [3, 11, 2024]

  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  const emptySwapsAndPositions = async () => {
    for (const table of [rt.tables.swaps, rt.tables.swapLocations, rt.tables.swapsByWallet, rt.tables.walletPositions]) {
      await rt.clickhouse.command({ query: `TRUNCATE TABLE ${table}` })
    }
  }

  it.each(SEEDS)('seed %i', async (seed) => {
    await emptySwapsAndPositions()
    const gen = new RandomSwaps(seed)
    let ingestedAt = Date.now()
    const stamp = () => (ingestedAt += 1000)
    const live = new Map<string, SwapRowInput>()
    const deliver = async (rows: SwapRowInput[]) => {
      await insertSwaps(rt, rows)
      for (const r of rows) live.set(r.hash, r)
    }
    const liveSwaps = (): StatSwap[] => [...live.values()].map(statSwapOf)
    const expectLikeReference = async (asOf: number, what: string) => {
      const run = await updateWalletStats(rt.clickhouse, rt.tables, asOf)
      expect(run.kind, what).toBe('incremental')
      const got = await walletStatsOfRun(rt.clickhouse, rt.tables, run)
      expectSameWallets(got, referenceWalletStats(liveSwaps(), asOf), `seed ${seed} ${what}`)
      return got
    }

    // history over 400 days on an hour grid (some swaps share a time), then a full run
    const t0 = stamp()
    await deliver(Array.from({ length: 250 }, () => gen.swap(AS_OF - Math.floor(gen.random() * 400 * 24) * HOUR, t0)))
    await storeWalletStats(rt.clickhouse, rt.tables, AS_OF)

    // new swaps over the next 3 days, the clock moving with them: swaps leave the windows
    let asOf = AS_OF
    for (let day = 1; day <= 3; day++) {
      const at = stamp()
      await deliver(Array.from({ length: 20 }, () => gen.swap(asOf + Math.floor(gen.random() * 24) * HOUR + 1, at)))
      asOf += DAY
      await expectLikeReference(asOf, `day ${day}`)
    }

    // one wallet's new swap: few wallets continued, so the carried lookup is narrowed to them
    await deliver([gen.swap(asOf + 1, stamp(), gen.wallets[0])])
    asOf += 1_000
    await expectLikeReference(asOf, 'one wallet continued')

    // a late swap of an existing pair, before its carried position; and one of a new wallet
    const [someone] = [...live.values()]
    const late = { ...gen.swap(AS_OF - 100 * DAY, stamp(), someone!.wallet_address), token_sold_address: someone!.token_sold_address! }
    if (late.token_bought_address === late.token_sold_address) late.token_bought_address = someone!.token_bought_address!
    await deliver([late, gen.swap(AS_OF - 50 * DAY, stamp(), `0x${'ab'.repeat(20)}`)])
    await expectLikeReference(asOf, 'late swaps')

    // a late swap at the very millisecond of a pair's last leg (the wallet's latest swap): the
    // positions keep that leg's time, not its key, so the wallet is refolded whatever the hashes' order
    const latest = [...live.values()].filter((r) => r.wallet_address === someone!.wallet_address).sort((x, y) => y.timestamp - x.timestamp)[0]!
    const sameTime = { ...gen.swap(latest.timestamp, stamp(), latest.wallet_address), token_sold_address: latest.token_bought_address! }
    if (sameTime.token_bought_address === sameTime.token_sold_address) sameTime.token_bought_address = latest.token_sold_address!
    await deliver([sameTime])
    await expectLikeReference(asOf, 'a late swap at the time of a last leg')

    // re-deliveries: one identical, one with another value (same key, later ingestion)
    const [a, b] = [...live.values()].slice(10, 12)
    await deliver([{ ...a!, ingested_at: stamp() }, { ...b!, value_usd: 12_345.67, ingested_at: stamp() }])
    await expectLikeReference(asOf, 're-deliveries')

    // a retraction (a tombstone through the log of retracted versions), and a move
    const [gone, moved] = [...live.values()].slice(20, 22)
    await rt.clickhouse.insert({
      table: rt.tables.swapMoves,
      values: [
        {
          hash: gone!.hash,
          chain_id: 1,
          timestamp: dateTime64Param(gone!.timestamp),
          wallet_address: gone!.wallet_address,
          token_sold_address: gone!.token_sold_address,
          token_bought_address: gone!.token_bought_address,
          superseded_at: dateTime64Param(stamp()),
        },
      ],
      format: 'JSONEachRow',
    })
    live.delete(gone!.hash)
    await deliver([{ ...moved!, timestamp: moved!.timestamp - 5 * HOUR, ingested_at: stamp() }])
    await expectLikeReference(asOf, 'retraction and move')

    // re-delivered at the same time as another wallet's, with another bought token, and
    // merged before the run: the first wallet's row is gone from swaps_by_time
    const [rewalleted] = [...live.values()].slice(30, 31)
    const other = [...live.values()].find((r) => r.wallet_address !== rewalleted!.wallet_address)!
    const bought = [other.token_bought_address, other.token_sold_address].find((t) => t !== rewalleted!.token_sold_address && t !== rewalleted!.token_bought_address) ?? `0x${'cd'.repeat(20)}`
    await deliver([{ ...rewalleted!, wallet_address: other.wallet_address, token_bought_address: bought, ingested_at: stamp() }])
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.swaps} FINAL` })
    const incremental = await expectLikeReference(asOf, 'same-time re-delivery as another wallet')

    // and the same as a full computation of the same swaps, in one slice of the wallets or in three
    expectSameWallets(incremental, await computeWalletStats(rt.clickhouse, rt.tables, asOf), `seed ${seed} full`)
    const sliced = await storeWalletStats(rt.clickhouse, rt.tables, asOf, Date.now() + 1, { slicing: { swaps: Math.ceil(live.size / 3), sampleEvery: 1 } })
    expectSameWallets(await walletStatsOfRun(rt.clickhouse, rt.tables, sliced), incremental, `seed ${seed} full in slices`)
  }, 120_000)

  it('an update made as a full run reports the full run\'s steps', async () => {
    await emptySwapsAndPositions()
    const gen = new RandomSwaps(7)
    // within the last 29 days: none leaves a window as the clock moves an hour
    await insertSwaps(rt, Array.from({ length: 20 }, () => gen.swap(AS_OF - Math.floor(gen.random() * 29 * 24) * HOUR, Date.now())))
    await storeWalletStats(rt.clickhouse, rt.tables, AS_OF)
    const steps: string[] = []
    // No wallet may be refolded: the update is made as a full run.
    const run = await updateWalletStats(rt.clickhouse, rt.tables, AS_OF + HOUR, Date.now(), { maxRefoldedWallets: -1, onStep: (step) => steps.push(step) })
    expect(run.kind).toBe('full')
    expect(steps).toEqual(['previous run', 'wallets to refold (0)', 'slices', 'positions (1 slices)', 'marks', 'wallet rows'])
  }, 60_000)
})
