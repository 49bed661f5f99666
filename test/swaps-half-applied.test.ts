import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../shared/storage/query-rows.js'
import { addressFor, hashFor, insertSwaps, swapRowValues, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2025, 4, 10, 12, 0, 0, 0)
const RANGE = `start_time=${T0 - 48 * HOUR}&end_time=${T0 + 48 * HOUR}`

/**
 * A process killed in the middle of an insert leaves it half applied: ClickHouse commits
 * each view's part on its own. These tests write such states by hand (the parts a kill
 * can leave) and check that what comes next still leaves exactly one live version of
 * each swap, in every access path, whatever version it delivers.
 */
describe('swaps after a half-applied insert', () => {
  let rt: TestRuntime
  let api: TestApi
  const wallet = addressFor('half-wallet')
  const usdc = addressFor('half-usdc')
  const weth = addressFor('half-weth')
  let n = 0

  /** A fresh hash and its version at `hours` from T0. */
  const version = (hash: string, hours: number, over: Partial<SwapRowInput> = {}): SwapRowInput => ({
    hash,
    timestamp: T0 + hours * HOUR,
    wallet_address: wallet,
    token_sold_address: usdc,
    token_bought_address: weth,
    block_number: 1_000 + hours,
    ingested_at: Date.now() + n++,
    ...over,
  })

  /** Step 1 of a delivery only: the process died before the rows' insert. */
  async function locationsOnly(row: SwapRowInput) {
    await rt.clickhouse.insert({ table: rt.tables.swapVersionsIncoming, values: swapRowValues([row]), format: 'JSONEachRow' })
  }

  /** Step 1, then of step 2 the row's part in swaps_by_time (and its chained views) only: no retraction ran. */
  async function rowWithoutRetractions(row: SwapRowInput) {
    await locationsOnly(row)
    await rt.clickhouse.insert({ table: rt.tables.swaps, values: swapRowValues([row]), format: 'JSONEachRow' })
  }

  /** The live versions of a hash in every access path, and what the API serves. */
  async function live(hash: string) {
    const times = async (table: string, extra = '') =>
      (await queryRows<{ t: string }>(rt.clickhouse, `SELECT toString(toUnixTimestamp64Milli(timestamp)) AS t FROM ${table} FINAL WHERE hash = {hash:String} ${extra} ORDER BY t`, { hash })).map((r) => Number(r.t))
    const listed = await getJson(`${api.baseUrl}/swap-transactions?${RANGE}&limit=500`, { headers: { 'cache-control': 'no-cache' } })
    const byHash = await getJson(`${api.baseUrl}/swap-transactions/${hash}`, { headers: { 'cache-control': 'no-cache' } })
    return {
      byTime: await times(rt.tables.swaps),
      byWallet: await times(rt.tables.swapsByWallet),
      legs: await times(rt.tables.swapLegs),
      listed: (listed.body.result as { hash: string; timestamp_ms: number }[]).filter((s) => s.hash === hash).map((s) => s.timestamp_ms),
      byHash: byHash.status === 200 ? (byHash.body.result as { timestamp_ms: number }).timestamp_ms : null,
    }
  }

  function expectOnlyLive(state: Awaited<ReturnType<typeof live>>, row: SwapRowInput) {
    const t = row.timestamp as number
    expect(state).toEqual({ byTime: [t], byWallet: [t], legs: [t, t], listed: [t], byHash: t })
  }

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('a version delivered after a half-applied one retracts it too', async () => {
    const hash = hashFor('half-1')
    await insertSwaps(rt, [version(hash, 0)])
    await rowWithoutRetractions(version(hash, 5))
    // The state the kill left: two live versions until something repairs it.
    expect((await live(hash)).byTime).toHaveLength(2)
    const latest = version(hash, -3)
    await insertSwaps(rt, [latest])
    expectOnlyLive(await live(hash), latest)
  })

  it('the re-delivery of the half-applied insert repairs it', async () => {
    const hash = hashFor('half-2')
    await insertSwaps(rt, [version(hash, 0)])
    const moved = version(hash, 7)
    await rowWithoutRetractions(moved)
    await insertSwaps(rt, [{ ...moved, ingested_at: Date.now() + n++ }])
    expectOnlyLive(await live(hash), moved)
  })

  it('a delivery that died between its two inserts is retracted by the next, and wins when delivered again', async () => {
    const hash = hashFor('half-3')
    await insertSwaps(rt, [version(hash, 0)])
    const died = version(hash, 9)
    await locationsOnly(died)
    const next = version(hash, 2)
    await insertSwaps(rt, [next])
    expectOnlyLive(await live(hash), next)
    await insertSwaps(rt, [{ ...died, ingested_at: Date.now() + n++ }])
    expectOnlyLive(await live(hash), died)
  })

  it('a retraction outranks the version it retracts even when that version was delivered later by the clock', async () => {
    const hash = hashFor('half-4')
    const future = version(hash, 0, { ingested_at: Date.now() + 60_000 })
    await insertSwaps(rt, [future])
    const now = version(hash, 4)
    await insertSwaps(rt, [now])
    expectOnlyLive(await live(hash), now)
  })

  it('a re-delivery at the same time with another wallet retracts the replaced wallet\'s row even when its location was merged before its rows arrived', async () => {
    const hash = hashFor('half-5')
    const first = version(hash, 3)
    await insertSwaps(rt, [first])
    const changed = version(hash, 3, { wallet_address: addressFor('half-other-wallet') })
    // Step 1, then a merge of the locations, then step 2: every variant's location survives the merge.
    await locationsOnly(changed)
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.swapLocations} FINAL` })
    const variants = await queryRows<{ wallet_address: string }>(
      rt.clickhouse,
      `SELECT DISTINCT wallet_address FROM ${rt.tables.swapLocations} WHERE hash = {hash:String} ORDER BY wallet_address`,
      { hash },
    )
    expect(variants.map((v) => v.wallet_address)).toEqual([first.wallet_address, changed.wallet_address].sort())
    await insertSwaps(rt, [changed])
    expectOnlyLive(await live(hash), changed)
    const wallets = await queryRows<{ wallet_address: string }>(
      rt.clickhouse,
      `SELECT wallet_address FROM ${rt.tables.swapsByWallet} FINAL WHERE hash = {hash:String}`,
      { hash },
    )
    expect(wallets.map((w) => w.wallet_address)).toEqual([changed.wallet_address])
  })
})
