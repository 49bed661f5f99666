import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../shared/storage/query-rows.js'
import { walletSlices } from '../shared/smart-money/wallet-slices.js'
import { addressFor, hashFor, insertSwaps, type SwapRowInput } from './support/factories.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A full run folds the wallets a slice at a time, each slice read from its own range of the
 * wallet path: the slices must cover every wallet exactly once, in slices of about the size
 * asked for, whatever the addresses look like (here every one shares a long prefix).
 */
describe('wallet statistics: the slices of a full run', () => {
  let rt: TestRuntime
  beforeAll(async () => {
    rt = await createTestRuntime()
  }, 60_000)
  afterAll(async () => rt?.cleanup())

  const wallets = Array.from({ length: 40 }, (_, i) => `0x${'0'.repeat(30)}${addressFor(`w${i}`).slice(-10)}`)
  const swaps: SwapRowInput[] = wallets.flatMap((wallet, w) =>
    Array.from({ length: 1 + (w % 5) }, (_, k) => ({
      hash: hashFor(`slice-${w}-${k}`),
      wallet_address: wallet,
      timestamp: Date.UTC(2026, 0, 1) + (w * 10 + k) * 60_000,
      token_sold_address: addressFor('sold'),
      token_bought_address: addressFor('bought'),
    })),
  )

  const walletsOf = async (condition: string, params: Record<string, unknown>) =>
    (await queryRows<{ wallet_address: string }>(rt.clickhouse, `SELECT DISTINCT wallet_address FROM ${rt.tables.swapsByWallet} WHERE ${condition}`, params)).map((r) => r.wallet_address)

  it('cover every wallet once, about `swaps` swaps each', async () => {
    await insertSwaps(rt, swaps)
    const slices = await walletSlices(rt.clickhouse, rt.tables, { swaps: 30, sampleEvery: 1 })
    expect(slices.length).toBeGreaterThanOrEqual(3)
    const seen: string[] = []
    for (const slice of slices) {
      const inSlice = await walletsOf(slice.condition, slice.params)
      const swapsInSlice = swaps.filter((s) => inSlice.includes(s.wallet_address ?? '')).length
      expect(swapsInSlice).toBeLessThanOrEqual(30 + 5)
      seen.push(...inSlice)
    }
    expect(seen.sort()).toEqual([...wallets].sort())
  })

  it('one slice for a small store', async () => {
    const slices = await walletSlices(rt.clickhouse, rt.tables)
    expect(slices).toEqual([{ condition: '1', params: { lower: undefined, upper: undefined } }])
  })
})
