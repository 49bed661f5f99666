import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dateTime64Param } from '../shared/platform/datetime-param.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { addressFor, hashFor, insertSwaps, insertTokens } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Late on the last day of January: a re-delivery an hour later lands in February. */
const T0 = Date.UTC(2025, 0, 31, 20, 0, 0, 0)
const RANGE = `start_time=${T0 - 10 * DAY}&end_time=${T0 + 10 * DAY}`

/**
 * The time-ordered layout is exact whether or not ClickHouse has merged: a swap written
 * twice is listed and counted once on every endpoint, a swap re-delivered at another time
 * replaces its earlier version everywhere (latest delivery wins), and paging by offset or
 * by cursor returns every row once while ingestion goes on.
 */
describe('swaps on the time-ordered layout', () => {
  let rt: TestRuntime
  let api: TestApi
  const alice = addressFor('alice')
  const bob = addressFor('bob')
  const usdc = addressFor('usdc')
  const weth = addressFor('weth')
  const link = addressFor('link')

  const swap = (i: number, over: Record<string, unknown> = {}) => ({
    hash: hashFor(`x-${i}`),
    timestamp: T0 + (i % 12) * 600_000, // ten minutes apart, two hours in all
    wallet_address: i % 2 === 0 ? alice : bob,
    token_sold_address: usdc,
    token_bought_address: i % 3 === 0 ? link : weth,
    block_number: 1000 + i,
    ...over,
  })
  const rows = Array.from({ length: 40 }, (_, i) => swap(i))

  /** Everything the API says about the swaps: every list and every total. */
  async function view() {
    const list = async (query: string) => {
      const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?${RANGE}&limit=500&${query}`)
      expect(status).toBe(200)
      return { hashes: (body.result as { hash: string }[]).map((s) => s.hash), total: body.pagination.total as number }
    }
    return {
      all: await list(''),
      alice: await list(`address=${alice}`),
      link: await list(`token_id=${link}`),
      weth: await list(`token_id=${weth}`),
      usdc: await list(`token_id=${usdc}`),
    }
  }

  function expectOnce(v: Awaited<ReturnType<typeof view>>, expected: typeof rows) {
    const hashes = (pick: (r: (typeof rows)[number]) => boolean) => expected.filter(pick).map((r) => r.hash)
    for (const [name, got, want] of [
      ['all', v.all, hashes(() => true)],
      ['alice', v.alice, hashes((r) => r.wallet_address === alice)],
      ['link', v.link, hashes((r) => r.token_bought_address === link)],
      ['weth', v.weth, hashes((r) => r.token_bought_address === weth)],
      ['usdc', v.usdc, hashes((r) => r.token_sold_address === usdc)],
    ] as const) {
      expect(new Set(got.hashes).size, name).toBe(got.hashes.length)
      expect([...got.hashes].sort(), name).toEqual([...want].sort())
      expect(got.total, name).toBe(want.length)
    }
  }

  beforeAll(async () => {
    rt = await createTestRuntime()
    api = await startTestApi(rt)
    await insertTokens(rt, [
      { contract_address: usdc, symbol: 'USDC', decimals: 6 },
      { contract_address: weth, symbol: 'WETH', decimals: 18 },
      { contract_address: link, symbol: 'LINK', decimals: 18 },
    ])
    await insertSwaps(rt, rows)
  })
  afterAll(async () => {
    await api?.close()
    await rt?.cleanup()
  })

  it('a swap delivered again is listed and counted once, before and after ClickHouse merges', async () => {
    await insertSwaps(rt, rows.slice(0, 15).map((r) => ({ ...r, ingested_at: Date.now() + 1 })))
    await insertSwaps(rt, rows.slice(10, 20))
    expectOnce(await view(), rows)
    for (const table of [rt.tables.swaps, rt.tables.swapsByWallet, rt.tables.swapLegs, rt.tables.swapLocations]) {
      await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
    }
    expectOnce(await view(), rows)
    await insertSwaps(rt, rows.slice(0, 5))
    expectOnce(await view(), rows)
  })

  it('a swap re-delivered at another time, into another month, with another wallet and token, is listed once at its new time', async () => {
    const moved = swap(3, { timestamp: T0 + 5 * HOUR, block_number: 99_999, wallet_address: bob, token_bought_address: weth })
    expect(new Date(moved.timestamp).getUTCMonth()).not.toBe(new Date(rows[3]!.timestamp).getUTCMonth())
    await insertSwaps(rt, [moved])
    const expected = rows.map((r, i) => (i === 3 ? moved : r))
    expectOnce(await view(), expected)

    const { body } = await getJson(`${api.baseUrl}/swap-transactions/${moved.hash}`)
    expect(body.result).toMatchObject({ timestamp_ms: moved.timestamp, block_number: 99_999, wallet_address: bob })
    // Listed at its new time only.
    const before = await getJson(`${api.baseUrl}/swap-transactions?start_time=${T0}&end_time=${T0 + 2 * HOUR}&limit=500`)
    expect(before.body.result.map((s: { hash: string }) => s.hash)).not.toContain(moved.hash)
    expect(before.body.pagination.total).toBe(39)
    const after = await getJson(`${api.baseUrl}/swap-transactions?start_time=${T0 + 4 * HOUR}&end_time=${T0 + 6 * HOUR}`)
    expect(after.body.result.map((s: { hash: string }) => s.hash)).toEqual([moved.hash])
    expect(after.body.pagination.total).toBe(1)

    // Moved back: the latest delivery wins again; and the same after a merge.
    await insertSwaps(rt, [rows[3]!])
    expectOnce(await view(), rows)
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.swaps} FINAL` })
    expectOnce(await view(), rows)
  })

  it('a swap re-delivered at the same time with another wallet and another token is listed once, under its new wallet and token, before and after merges', async () => {
    const merge = async () => {
      for (const table of [rt.tables.swaps, rt.tables.swapsByWallet, rt.tables.swapLegs, rt.tables.swapLocations]) {
        await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
      }
    }
    // rows[7]: bob's, USDC for WETH; now alice's, USDC for LINK, at the same time
    const changed = { ...rows[7]!, wallet_address: alice, token_bought_address: link, block_number: 77_777 }
    await insertSwaps(rt, [changed])
    const expected = rows.map((r, i) => (i === 7 ? changed : r))
    expectOnce(await view(), expected)
    await merge()
    expectOnce(await view(), expected)
    // The first variant again, stamped before the change (a late re-delivery of an old job): the change stays everywhere.
    await insertSwaps(rt, [{ ...rows[7]!, ingested_at: Date.now() - 60_000 }])
    expectOnce(await view(), expected)
    await merge()
    expectOnce(await view(), expected)
    // Changed back: bob's again everywhere, and after a merge.
    await insertSwaps(rt, [rows[7]!])
    expectOnce(await view(), rows)
    await merge()
    expectOnce(await view(), rows)
  })

  it('three versions of one swap in one insert: the latest delivery, then the latest time, is kept', async () => {
    const base = swap(100, { timestamp: T0 + 8 * HOUR })
    const now = Date.now()
    await insertSwaps(rt, [
      { ...base, ingested_at: now },
      { ...base, timestamp: T0 + 9 * HOUR, ingested_at: now + 5 },
      { ...base, timestamp: T0 + 7 * HOUR, ingested_at: now + 5 },
    ])
    const { body } = await getJson(`${api.baseUrl}/swap-transactions?start_time=${T0 + 6 * HOUR}&end_time=${T0 + 10 * HOUR}`)
    expect(body.result.map((s: { timestamp_ms: number }) => s.timestamp_ms)).toEqual([T0 + 9 * HOUR])
    expect(body.pagination.total).toBe(1)
  })

  it('paging by offset and by cursor returns every row once while ingestion goes on', async () => {
    const range = `start_time=${T0}&end_time=${T0 + 2 * HOUR}`
    const expected = (await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=500`)).body.result.map(
      (s: { hash: string }) => s.hash,
    ) as string[]
    expect(expected.length).toBe(40)
    let extra = 0
    const ingestElsewhere = () => insertSwaps(rt, [swap(1000 + extra++, { timestamp: T0 + 3 * HOUR + extra })])

    const byOffset: string[] = []
    for (let offset = 0; ; offset += 7) {
      await ingestElsewhere()
      const { body } = await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=7&offset=${offset}`)
      expect(body.pagination).toMatchObject({ total: 40, limit: 7, offset })
      byOffset.push(...body.result.map((s: { hash: string }) => s.hash))
      if (body.result.length < 7) break
    }
    expect(byOffset).toEqual(expected)

    // By cursor, over a range still being written to at its newest end.
    const open = `start_time=${T0}&end_time=${T0 + 4 * HOUR}`
    const first = await getJson(`${api.baseUrl}/swap-transactions?${open}&limit=6`)
    const extraBefore = extra
    const seen: string[] = first.body.result.map((s: { hash: string }) => s.hash)
    let cursor: string | null = first.body.pagination.next_cursor
    let pages = 1
    while (cursor !== null) {
      await ingestElsewhere()
      const { status, body } = await getJson(`${api.baseUrl}/swap-transactions?${open}&limit=6&cursor=${cursor}`)
      expect(status).toBe(200)
      // Rows ingested since, all newer than the cursor, are counted before the page.
      expect(body.pagination.offset).toBe(pages * 6 + (extra - extraBefore))
      seen.push(...body.result.map((s: { hash: string }) => s.hash))
      cursor = body.pagination.next_cursor
      pages++
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.slice(-40)).toEqual(expected)
  })

  it('a cursor is refused with another query, with an offset, or when it is not one', async () => {
    const range = `start_time=${T0}&end_time=${T0 + 2 * HOUR}`
    const { body } = await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=5`)
    const cursor = body.pagination.next_cursor as string
    expect(typeof cursor).toBe('string')
    for (const query of [
      `start_time=${T0}&end_time=${T0 + HOUR}&cursor=${cursor}`,
      `${range}&address=${alice}&cursor=${cursor}`,
      `${range}&cursor=${cursor}&offset=5`,
      `${range}&cursor=not-a-cursor`,
      `${range}&cursor=`,
    ]) {
      const res = await getJson(`${api.baseUrl}/swap-transactions?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body.status).toBe('error')
    }
    // With a wallet or token filter the cursor walks the filtered rows.
    const wallet = await getJson(`${api.baseUrl}/swap-transactions?${range}&address=${alice}&limit=3`)
    const next = await getJson(
      `${api.baseUrl}/swap-transactions?${range}&address=${alice}&limit=3&cursor=${wallet.body.pagination.next_cursor}`,
    )
    expect(next.body.pagination.offset).toBe(3)
    const both = [...wallet.body.result, ...next.body.result].map((s: { hash: string }) => s.hash)
    const direct = await getJson(`${api.baseUrl}/swap-transactions?${range}&address=${alice}&limit=6`)
    expect(both).toEqual(direct.body.result.map((s: { hash: string }) => s.hash))
  })

  it('a counted hour drops a swap retracted by an insert whose server times are minutes old (the feed has no time window)', async () => {
    // Far from the other tests' swaps: a whole hour, then part of the next (the stored end).
    const hour = T0 + 30 * DAY
    const stamped = Date.now() - 20 * 60_000
    const victim = swap(300, { timestamp: hour + 5 * 60_000, ingested_at: stamped })
    await insertSwaps(rt, [victim, swap(301, { timestamp: hour + 6 * 60_000 }), swap(302, { timestamp: hour + HOUR + 30 * 60_000 })])
    const total = async (query = '') => {
      const { body } = await getJson(`${api.baseUrl}/swap-transactions?start_time=${hour}&end_time=${hour + 2 * HOUR - 1}${query}`)
      return body.pagination.total as number
    }
    expect([await total(), await total(`&token_id=${usdc}`)]).toEqual([3, 3])
    // The retraction's insert stamped ten minutes before it commits (a retraction of the swap's
    // version, moved_at and superseded_at alike): a reader re-reading a window of server time
    // (60 s, say) after its last look would never see it.
    const late = dateTime64Param(stamped + 10 * 60_000)
    await rt.clickhouse.insert({
      table: rt.tables.swapMoves,
      format: 'JSONEachRow',
      values: [
        {
          hash: victim.hash,
          chain_id: 1,
          timestamp: dateTime64Param(victim.timestamp),
          wallet_address: victim.wallet_address,
          token_sold_address: victim.token_sold_address,
          token_bought_address: victim.token_bought_address,
          superseded_at: late,
          moved_at: late,
        },
      ],
    })
    expect([await total(), await total(`&token_id=${usdc}`)]).toEqual([2, 2])
  })
})

/**
 * Each leg of the token path carries its swap's wallet (a token's page of the served wallets
 * picks its keys there): the live legs are exactly each live swap's tokens with the wallet
 * swaps_by_time serves for it, through re-deliveries, a move and a same-time re-delivery
 * with another wallet and token.
 */
describe('the token path carries each swap\'s wallet', () => {
  let rt: TestRuntime
  const tokens = [addressFor('lw-a'), addressFor('lw-b'), addressFor('lw-c')]
  const wallets = [addressFor('lw-w0'), addressFor('lw-w1'), addressFor('lw-w2')]
  const rows = Array.from({ length: 30 }, (_, i) => ({
    hash: hashFor(`lw-${i}`),
    timestamp: T0 + i * 600_000,
    wallet_address: wallets[i % 3],
    token_sold_address: tokens[i % 3],
    token_bought_address: tokens[(i + 1) % 3],
  }))
  beforeAll(async () => {
    rt = await createTestRuntime()
  })
  afterAll(async () => {
    await rt?.cleanup()
  })

  const legs = async (query: string) => (await queryRows<{ leg: string }>(rt.clickhouse, query)).map((l) => l.leg)
  /** The live legs: token, key and wallet. */
  const liveLegs = () =>
    legs(`SELECT concat(token_address, ' ', toString(timestamp), ' ', hash, ' ', wallet_address) AS leg FROM ${rt.tables.swapLegs} FINAL WHERE NOT is_deleted ORDER BY leg`)
  /** What the live legs must be: each live swap's tokens, with its wallet. */
  const expectedLegs = () =>
    legs(`SELECT concat(token_address, ' ', toString(timestamp), ' ', hash, ' ', wallet_address) AS leg FROM ${rt.tables.swaps} FINAL
      ARRAY JOIN arrayDistinct([token_sold_address, token_bought_address]) AS token_address ORDER BY leg`)

  it('the views write each leg with its wallet, and a same-time re-delivery with another wallet moves its legs', async () => {
    await insertSwaps(rt, rows)
    expect(await expectedLegs()).toHaveLength(60)
    expect(await liveLegs()).toEqual(await expectedLegs())
    const later = Date.now() + 1_000
    await insertSwaps(rt, [
      { ...rows[1]!, ingested_at: later }, // the same again
      { ...rows[2]!, timestamp: T0 + 5 * HOUR, ingested_at: later }, // moved to another hour
      { ...rows[3]!, wallet_address: wallets[2], token_bought_address: tokens[2], ingested_at: later }, // same time, another wallet and token
    ])
    const late = { hash: hashFor('lw-late'), timestamp: T0 + 7 * HOUR, wallet_address: wallets[1], token_sold_address: tokens[0], token_bought_address: tokens[1] }
    await insertSwaps(rt, [late])
    await insertSwaps(rt, [{ ...rows[4]!, wallet_address: wallets[0], ingested_at: Date.now() + 5_000 }])
    const live = await liveLegs()
    expect(live).toEqual(await expectedLegs())
    expect(live.filter((l) => l.includes(late.hash))).toHaveLength(2)
    expect(live.filter((l) => l.includes(rows[4]!.hash)).every((l) => l.endsWith(wallets[0]!))).toBe(true)
  })
})
