import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listSwaps } from '../api/contract/endpoints/swaps.js'
import { listWalletHoldings } from '../api/contract/endpoints/wallets.js'
import { ServedWallets } from '../api/served-wallets.js'
import { SwapHourCounts } from '../api/swap-hour-counts.js'
import { SwapsRepository } from '../api/swaps-repository.js'
import { TokenDirectory } from '../api/token-directory.js'
import { VersionedResults } from '../api/versioned-results.js'
import { FeedWatch } from '../api/feed-watch.js'
import { createLogger } from '../shared/platform/logger.js'
import { createRedis } from '../shared/platform/redis.js'
import { startIndicatorsRole } from '../indicators/role.js'
import { startTrackedSetPublisher, type TrackedSetPublisher } from '../indicators/tracked-set-publisher.js'
import { loadConfig } from '../shared/platform/config.js'
import { queryRows } from '../shared/storage/query-rows.js'
import { latestTrackedGeneration, trackedGenerationWallets } from '../shared/smart-money/tracked-generations.js'
import { storeWalletStats } from '../shared/smart-money/store-wallet-stats.js'
import { TrackedWalletsFile } from '../shared/smart-money/tracked-wallets-file.js'
import { addressFor, hashFor, insertHoldings, insertSwaps, type SwapRowInput } from './support/factories.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { pageThrough } from './support/paging.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const HOUR = 3_600_000
const NOW = Math.floor(Date.now() / HOUR) * HOUR
const START = NOW - 40 * HOUR
const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => addressFor(`served-${n}`)) as [string, string, string]
const others = Array.from({ length: 5 }, (_, i) => addressFor(`served-other-${i}`))
const tokens = Array.from({ length: 3 }, (_, i) => addressFor(`served-token-${i}`))
/** Swaps per wallet: only bob reaches the rule's 40 trades. */
const TRADES: Array<[string, number]> = [[alice, 25], [bob, 45], [carol, 30], ...others.map((w): [string, number] => [w, 20])]
const RULES = [{ id: 'busy', kind: 'threshold', window: 'all', min_trades: 40 }]

/** A deterministic spread over 40 hours and three tokens, several swaps sharing some times. */
function swapsOf(): SwapRowInput[] {
  const rows: SwapRowInput[] = []
  let n = 0
  for (const [wallet, count] of TRADES) {
    for (let i = 0; i < count; i++, n++) {
      const sold = tokens[n % 3]!
      rows.push({
        hash: hashFor(`served-${n}`),
        timestamp: START + ((n * 7_919_333) % (40 * HOUR)) - (n % 4 === 0 ? 0 : n % 1000),
        wallet_address: wallet,
        token_sold_address: sold,
        token_bought_address: tokens[(n + 1) % 3]!,
        value_usd: 10 + (n % 17),
      })
    }
  }
  return rows
}

const newestFirst = (a: SwapRowInput, b: SwapRowInput) => b.timestamp - a.timestamp || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)

/**
 * SERVED_WALLETS=tracked over real HTTP: the interface's swap and holdings reads serve the
 * tracked set's rows only (the listed wallets and the rules' passers, as GET /wallets),
 * exact on every page and total; a wallet entering the set is served, one leaving it is not
 * and its rows stay stored.
 */
describe('SERVED_WALLETS=tracked', () => {
  let rt: TestRuntime
  let api: TestApi
  let publisher: TrackedSetPublisher
  const dir = mkdtempSync(join(tmpdir(), 'served-wallets-'))
  const file = join(dir, 'wallets.txt')
  let swaps = swapsOf()
  const range = `start_time=${START - HOUR}&end_time=${NOW}`

  beforeAll(async () => {
    writeFileSync(file, `${alice} Alice\n${others[0]}\n`)
    rt = await createTestRuntime({ TRACKED_WALLETS_FILE: file, SMART_MONEY_RULES: JSON.stringify(RULES), SERVED_WALLETS: 'tracked' })
    await insertSwaps(rt, swaps)
    await insertHoldings(
      rt,
      TRADES.flatMap(([wallet], w) => tokens.map((token, t) => ({ wallet_address: wallet, contract_address: token, value_usd: 1000 - w * 10 - t }))),
    )
    api = await startTestApi(rt)
    publisher = startTrackedSetPublisher({
      clickhouse: rt.clickhouse,
      tables: rt.tables,
      logger: rt.logger,
      trackedWallets: new TrackedWalletsFile(file),
      rules: rt.config.smartMoney.rules,
      intervalMs: 0,
    })
  }, 120_000)
  afterAll(async () => {
    await publisher?.stop()
    await api?.close()
    await rt?.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Waits until the API serves exactly `wallets` (it looks for a new generation once a second). */
  async function servedBecomes(wallets: string[]): Promise<void> {
    const expected = swaps.filter((s) => wallets.includes(s.wallet_address!)).length
    const deadline = Date.now() + 10_000
    for (;;) {
      const { body } = await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=1`)
      if (body.pagination?.total === expected) return
      if (Date.now() > deadline) throw new Error(`served total ${body.pagination?.total}, expected ${expected}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  async function expectServed(wallets: string[]): Promise<void> {
    const served = swaps.filter((s) => wallets.includes(s.wallet_address!)).sort(newestFirst)
    // Every page of the range, by offset, against the reference.
    const all = await pageThrough(`${api.baseUrl}/swap-transactions?${range}`, 7)
    expect(all.records.map((s) => s.hash)).toEqual(served.map((s) => s.hash))
    expect(new Set(all.totals)).toEqual(new Set([served.length]))
    // By cursor, from a deep page on.
    const deep = await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=9&offset=18`)
    let cursor: string | null = deep.body.pagination.next_cursor
    const byCursor = deep.body.result.map((s: { hash: string }) => s.hash)
    while (cursor !== null) {
      const page = await getJson(`${api.baseUrl}/swap-transactions?${range}&limit=9&cursor=${encodeURIComponent(cursor)}`)
      expect(page.status).toBe(200)
      byCursor.push(...page.body.result.map((s: { hash: string }) => s.hash))
      expect(page.body.pagination.total).toBe(served.length)
      cursor = page.body.pagination.next_cursor
    }
    expect(byCursor).toEqual(served.slice(18).map((s) => s.hash))
    // One token's swaps (either leg), every page.
    const ofToken = served.filter((s) => s.token_sold_address === tokens[1] || s.token_bought_address === tokens[1])
    const byToken = await pageThrough(`${api.baseUrl}/swap-transactions?${range}&token_id=${tokens[1]}`, 6)
    expect(byToken.records.map((s) => s.hash)).toEqual(ofToken.map((s) => s.hash))
    expect(new Set(byToken.totals)).toEqual(new Set([ofToken.length]))
    // A window inside one hour (a partial-hour count).
    const inner = { from: START + 10 * HOUR + 600_000, to: START + 10 * HOUR + 1_800_000 }
    const innerServed = served.filter((s) => s.timestamp >= inner.from && s.timestamp <= inner.to)
    const innerPage = await getJson(`${api.baseUrl}/swap-transactions?start_time=${inner.from}&end_time=${inner.to}&limit=100`)
    expect(innerPage.body.result.map((s: { hash: string }) => s.hash)).toEqual(innerServed.map((s) => s.hash))
    expect(innerPage.body.pagination.total).toBe(innerServed.length)
    // Holdings: all of them, one token's, one by id, one wallet's.
    const holdings = await pageThrough(`${api.baseUrl}/holdings`, 4)
    expect(holdings.records.map((h) => h.wallet_address).sort()).toEqual(wallets.flatMap((w) => [w, w, w]).sort())
    const ofTokenHoldings = await getJson(`${api.baseUrl}/holdings/token/${tokens[2]}`)
    expect(ofTokenHoldings.body.result.map((h: { wallet_address: string }) => h.wallet_address).sort()).toEqual([...wallets].sort())
    expect(ofTokenHoldings.body.pagination.total).toBe(wallets.length)
    // A token's flows: of the served wallets' swaps only.
    const flows = await getJson(`${api.baseUrl}/tokens/${tokens[1]}/flows?${range}&top=100`)
    expect(flows.status).toBe(200)
    expect(flows.body.result.swaps).toBe(ofToken.length)
    const flowWallets = [...flows.body.result.top_buyers, ...flows.body.result.top_sellers].map((w: { wallet_address: string }) => w.wallet_address)
    expect(flowWallets.every((w: string) => wallets.includes(w))).toBe(true)
    for (const [wallet] of TRADES) {
      const isServed = wallets.includes(wallet)
      const own = swaps.filter((s) => s.wallet_address === wallet)
      const list = await getJson(`${api.baseUrl}/swap-transactions?${range}&address=${wallet}&limit=100`)
      expect(list.status).toBe(200)
      expect(list.body.pagination.total, wallet).toBe(isServed ? own.length : 0)
      listSwaps.success.schema.parse(list.body)
      if (!isServed) expect(list.body.message).toMatch(/not in the tracked set/)
      const hash = await getJson(`${api.baseUrl}/swap-transactions/${own[0]!.hash}`)
      expect(hash.status, wallet).toBe(isServed ? 200 : 404)
      if (!isServed) expect(hash.body).toEqual({ status: 'error', message: `No swap transaction with hash ${own[0]!.hash} by a tracked wallet` })
      const holding = await getJson(`${api.baseUrl}/holdings/${wallet}-${tokens[0]}`)
      expect(holding.status, wallet).toBe(isServed ? 200 : 404)
      const walletHoldings = await getJson(`${api.baseUrl}/wallets/${wallet}/holdings`)
      expect(walletHoldings.body.pagination.total, wallet).toBe(isServed ? 3 : 0)
      listWalletHoldings.success.schema.parse(walletHoldings.body)
      if (!isServed) expect(walletHoldings.body.message).toMatch(/not in the tracked set/)
    }
  }

  it('before the first statistics run: the listed wallets', async () => {
    await publisher.publish()
    await servedBecomes([alice, others[0]!])
    await expectServed([alice, others[0]!])
  }, 60_000)

  it('after a run: the rule\'s passers join, as GET /wallets lists them', async () => {
    await storeWalletStats(rt.clickhouse, rt.tables, NOW + HOUR)
    await publisher.publish()
    await servedBecomes([alice, bob, others[0]!])
    await expectServed([alice, bob, others[0]!])
    const listed = await getJson(`${api.baseUrl}/wallets`)
    expect(listed.body.result.map((w: { wallet_address: string }) => w.wallet_address).sort()).toEqual([alice, bob, others[0]!].sort())
  }, 60_000)

  it('an edit of the file: a wallet leaves (its rows stay stored), another enters', async () => {
    writeFileSync(file, `${carol} Carol\n${others[0]}\n`)
    // New swaps in hours the previous generation counted: those hours are counted again, the others derived from its counts.
    const extra = [bob, carol, alice].map((wallet, i): SwapRowInput => ({ hash: hashFor(`served-extra-${i}`), timestamp: START + (5 + i) * HOUR + 1_234, wallet_address: wallet, token_sold_address: tokens[1], token_bought_address: tokens[2] }))
    await insertSwaps(rt, extra)
    swaps = [...swaps, ...extra]
    await publisher.publish()
    await servedBecomes([bob, carol, others[0]!])
    await expectServed([bob, carol, others[0]!])
    const [stored] = await queryRows<{ n: string }>(rt.clickhouse, `SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE wallet_address = {w:String}`, { w: alice })
    expect(Number(stored!.n)).toBe(26)
    const latest = await latestTrackedGeneration(rt.clickhouse, rt.tables)
    expect(await trackedGenerationWallets(rt.clickhouse, rt.tables, latest!.generation)).toEqual([bob, carol, others[0]!].sort())
  }, 60_000)

  it('a swap re-delivered at the same time as an untracked wallet is no longer served (the live version is the one filtered)', async () => {
    const moved = swaps.find((s) => s.wallet_address === bob)!
    const again = { ...moved, wallet_address: others[3]!, ingested_at: Date.now() + 1_000 }
    await insertSwaps(rt, [again])
    swaps = swaps.map((s) => (s === moved ? again : s))
    await servedBecomes([bob, carol, others[0]!])
    await expectServed([bob, carol, others[0]!])
  }, 60_000)

  it('a token\'s pages by either plan (keys from the token path, or a scan of the hours) give the same served swaps', async () => {
    const wallets = [bob, carol, others[0]!]
    const served = await new ServedWallets(rt.clickhouse, rt.tables, 'tracked').current()
    expect([...served!.wallets].sort()).toEqual([...wallets].sort())
    const redis = createRedis(rt.config.redis.url)
    const directory = await TokenDirectory.start({ clickhouse: rt.clickhouse, tables: rt.tables, redis, redisPrefix: rt.config.redis.prefix, refreshMs: 60_000, logger: createLogger('silent') })
    try {
      for (const token of tokens) {
        const expected = swaps
          .filter((s) => wallets.includes(s.wallet_address!) && (s.token_sold_address === token || s.token_bought_address === token))
          .sort(newestFirst)
          .map((s) => s.hash)
        for (const scanRows of [0, Infinity]) {
          const feed = new FeedWatch(rt.clickhouse, rt.tables)
          const counts = new SwapHourCounts(rt.clickhouse, rt.tables, feed)
          const repository = new SwapsRepository(rt.clickhouse, rt.tables, counts, directory, new VersionedResults(feed, ['swap']), { scanRows })
          const filter = { startMs: START - HOUR, endMs: NOW, tokenAddresses: [token] }
          // The unfiltered hours counted, as other pages would have: the scan plan needs them to choose.
          await repository.list({ startMs: START - HOUR, endMs: NOW }, { limit: 1, offset: 0 }, { offset: 0 }, { fresh: true }, served)
          const hashes: string[] = []
          for (let offset = 0; offset < expected.length + 5; offset += 5) {
            const page = await repository.list(filter, { limit: 5, offset }, { offset }, { fresh: true }, served)
            expect(page.total).toBe(expected.length)
            hashes.push(...page.swaps.map((s) => s.hash))
          }
          expect(hashes, `scanRows ${scanRows}`).toEqual(expected)
        }
      }
    } finally {
      await directory.close()
      redis.disconnect()
    }
  }, 60_000)

  it('an unchanged set publishes no new generation', async () => {
    const before = await latestTrackedGeneration(rt.clickhouse, rt.tables)
    writeFileSync(file, `${others[0]}\n${carol} Carol again\n`)
    await publisher.publish()
    expect(await latestTrackedGeneration(rt.clickhouse, rt.tables)).toEqual(before)
  })

  it('is refused on a cluster, with the reason', () => {
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'main', SERVED_WALLETS: 'tracked' })).toThrow(/SERVED_WALLETS: tracked is not supported on a cluster/)
    expect(() => loadConfig({ SERVED_WALLETS: 'some' })).toThrow(/SERVED_WALLETS/)
  })
})

describe('SERVED_WALLETS=tracked in the indicators role', () => {
  it('the role publishes the tracked set at start (the file\'s wallets before any statistics run), and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'served-role-'))
    const file = join(dir, 'wallets.txt')
    writeFileSync(file, `${carol}\n${alice} Alice\n`)
    const rt = await createTestRuntime({ TRACKED_WALLETS_FILE: file, SERVED_WALLETS: 'tracked', WALLET_STATS_REFRESH_MS: '0', TRACKED_SET_REFRESH_MS: '100' })
    const role = await startIndicatorsRole(rt)
    try {
      const deadline = Date.now() + 10_000
      let latest = await latestTrackedGeneration(rt.clickhouse, rt.tables)
      while (latest === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
        latest = await latestTrackedGeneration(rt.clickhouse, rt.tables)
      }
      expect(latest).toMatchObject({ wallets: 2, runComputedAtMs: null })
      expect(await trackedGenerationWallets(rt.clickhouse, rt.tables, latest!.generation)).toEqual([alice, carol].sort())
      // An edit is picked up by the role's own looks.
      writeFileSync(file, `${carol}\n${alice} Alice\n${bob}\n`)
      while (latest!.wallets !== 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
        latest = await latestTrackedGeneration(rt.clickhouse, rt.tables)
      }
      expect(latest!.wallets).toBe(3)
    } finally {
      await role.stop()
      await rt.cleanup()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
