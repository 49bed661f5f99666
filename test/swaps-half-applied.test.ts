import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { swapVersionsFirst } from '../shared/storage/migrations/009_swap_versions_first.js'
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

  it('migration 9 repairs a store the earlier layout left doubled: the latest delivery stays, its location is stored', async () => {
    const hash = hashFor('half-5')
    const first = version(hash, 1)
    const latest = version(hash, 11)
    // As the earlier layout's half-applied insert left it: both rows live, no location of the latest.
    await insertSwaps(rt, [first])
    await rt.clickhouse.insert({ table: rt.tables.swaps, values: swapRowValues([latest]), format: 'JSONEachRow' })
    expect((await live(hash)).byTime).toHaveLength(2)
    await swapVersionsFirst.run!(rt.clickhouse, rt.tables)
    expectOnlyLive(await live(hash), latest)
    const located = await queryRows<{ n: string }>(
      rt.clickhouse,
      `SELECT count() AS n FROM ${rt.tables.swapLocations} WHERE hash = {hash:String} AND timestamp = fromUnixTimestamp64Milli({t:Int64}, 'UTC')`,
      { hash, t: latest.timestamp },
    )
    expect(Number(located[0]!.n)).toBeGreaterThan(0)
    // Then a new version retracts the repaired one as any other.
    const next = version(hash, -6)
    await insertSwaps(rt, [next])
    expectOnlyLive(await live(hash), next)
  })
})
