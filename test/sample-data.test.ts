import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import { recordSchemas } from '../shared/records/records.js'
import { toDecimalAmount } from '../shared/records/amounts.js'
import { loadSampleDataIfEmpty, storeIsEmpty } from '../ingest/sample-data/load-sample-data.js'
import { buildSampleDataset, rawAmount } from '../ingest/sample-data/sample-dataset.js'
import { startIngestRole } from '../ingest/role.js'
import { JobWaiter } from '../ingest/cli/backfill/job-waiter.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

const HOUR = 3_600_000
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const END = Date.UTC(2026, 0, 15, 10, 42, 7)

describe('sample dataset', () => {
  const sample = buildSampleDataset({ endTime: END })

  it('holds the mainnet tokens of @uniswap/default-token-list, WETH among them', () => {
    expect(sample.tokens.length).toBeGreaterThan(300)
    expect(sample.tokens).toContainEqual({ contract_address: WETH, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, chain_id: 1 })
  })

  it('is moderate in size and every record passes its schema', () => {
    const total = sample.tokens.length + sample.prices.length + sample.swaps.length + sample.holdings.length
    expect(total).toBeGreaterThan(20_000)
    expect(total).toBeLessThan(100_000)
    expect(sample.wallets).toHaveLength(40)
    for (const [type, records] of [
      ['token', sample.tokens],
      ['price', sample.prices],
      ['swap', sample.swaps],
      ['holding', sample.holdings],
    ] as const) {
      for (const record of records) expect(recordSchemas[type].safeParse(record).success).toBe(true)
    }
    expect(new Set(sample.swaps.map((s) => s.hash)).size).toBe(sample.swaps.length)
  })

  it('covers at least 60 days ending at the current hour, hourly, for 200+ 4-hour candles per token', () => {
    expect(sample.endTime).toBe(Date.UTC(2026, 0, 15, 10))
    expect(sample.endTime - sample.startTime).toBeGreaterThanOrEqual(60 * 24 * HOUR)
    const weth = sample.prices.filter((p) => p.contract_address === WETH).map((p) => Number(p.timestamp))
    expect(weth[0]).toBe(sample.startTime)
    expect(weth.at(-1)).toBe(sample.endTime)
    expect(weth.every((t, i) => i === 0 || t - weth[i - 1]! === HOUR)).toBe(true)
    expect(new Set(weth.map((t) => Math.floor(t / (4 * HOUR)))).size).toBeGreaterThanOrEqual(200)
    for (const swap of sample.swaps) {
      expect(Number(swap.timestamp)).toBeGreaterThanOrEqual(sample.startTime)
      expect(Number(swap.timestamp)).toBeLessThan(sample.endTime)
    }
  })

  it('values swaps consistently with the hourly prices and the token decimals', () => {
    const decimals = new Map(sample.tokens.map((t) => [t.contract_address, Number(t.decimals)]))
    const priceAt = new Map(sample.prices.map((p) => [`${p.contract_address}@${p.timestamp}`, Number(p.price_usd)]))
    for (const swap of sample.swaps.slice(0, 500)) {
      const hour = Math.floor(Number(swap.timestamp) / HOUR) * HOUR
      const sold = swap.token_sold.contract_address
      const units = toDecimalAmount(swap.token_sold.amount_raw, decimals.get(sold)!)!
      expect(units * priceAt.get(`${sold}@${hour}`)!).toBeCloseTo(Number(swap.value_usd), 2)
    }
  })

  it('is deterministic: the same seed gives the same hashes, wallets and amounts whenever it is built', () => {
    const later = buildSampleDataset({ endTime: END + 7 * 24 * HOUR })
    expect(later.swaps.map((s) => [s.hash, s.wallet_address, s.token_sold, s.token_bought, s.value_usd])).toEqual(
      sample.swaps.map((s) => [s.hash, s.wallet_address, s.token_sold, s.token_bought, s.value_usd]),
    )
    expect(later.holdings.map((h) => h.balance_raw)).toEqual(sample.holdings.map((h) => h.balance_raw))
    expect(Number(later.swaps[0]!.timestamp) - Number(sample.swaps[0]!.timestamp)).toBe(7 * 24 * HOUR)
    const other = buildSampleDataset({ endTime: END, seed: 7 })
    expect(other.swaps[0]!.hash).not.toBe(sample.swaps[0]!.hash)
  })

  it('keeps the hash and holding id the README shows', () => {
    expect(sample.swaps[0]!.hash).toBe('0x1e904cf2ff3e2a35c0da4311a4d8f1cd893e649abccdb5ce433790e88c9f65fe')
    expect(sample.holdings).toContainEqual(
      expect.objectContaining({
        wallet_address: '0xf2a34f581569e712e97e24c4f6eb28154be9ad99',
        contract_address: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984',
      }),
    )
  })

  it('computes raw amounts as exact integer strings', () => {
    expect(rawAmount(3_000, 3_000, 18)).toBe('1000000000000000000')
    expect(rawAmount(1, 1, 6)).toBe('1000000')
    expect(rawAmount(123.45, 0.00001, 18)).toBe('12345000000000000000000000')
  })
})

describe('loading the sample on first start', () => {
  let rt: TestRuntime
  let producer: IngestProducer
  beforeAll(async () => {
    rt = await createTestRuntime({ SAMPLE_DATA: 'true' })
    producer = new IngestProducer(rt.config)
  })
  afterAll(async () => {
    await producer.close()
    await rt.cleanup()
  })

  it('enqueues nothing when SAMPLE_DATA is off or the mode is server', async () => {
    expect(await loadSampleDataIfEmpty({ ...rt, config: { ...rt.config, sampleData: false } }, producer)).toBeNull()
    const server = { ...rt, config: { ...rt.config, clickhouse: { mode: 'server' as const, url: 'http://x', user: 'u', password: '', database: 'd' } } }
    expect(await loadSampleDataIfEmpty(server, producer)).toBeNull()
    expect(await producer.queue.count()).toBe(0)
  })

  it('enqueues the whole sample through the ingest queue into an empty store, tokens first', async () => {
    expect(await storeIsEmpty(rt)).toBe(true)
    const loaded = await loadSampleDataIfEmpty(rt, producer, { endTime: END })
    expect(loaded).not.toBeNull()
    const queued = await producer.queue.getJobs(['waiting'], 0, -1, true)
    expect(queued.map((j) => j.id)).toEqual(loaded!.jobIds)
    expect(queued[0]!.name).toBe('token')
    const count = (type: string) => queued.filter((j) => j.name === type).reduce((n, j) => n + j.data.records.length, 0)
    expect([count('token'), count('price'), count('swap'), count('holding')]).toEqual([
      loaded!.tokens,
      loaded!.prices,
      loaded!.swaps,
      loaded!.holdings,
    ])
    expect(queued.every((j) => j.data.source.startsWith('sample-data'))).toBe(true)
  })

  it('leaves a store that already has tokens alone', async () => {
    await rt.clickhouse.insert({
      table: rt.tables.tokens,
      values: [{ contract_address: WETH, id: WETH, chain_id: 1, name: 'Wrapped Ether', symbol: 'WETH', decimals: 18, updated_at: Date.now() }],
      format: 'JSONEachRow',
    })
    expect(await storeIsEmpty(rt)).toBe(false)
    expect(await loadSampleDataIfEmpty(rt, producer)).toBeNull()
  })
})

describe('the sample through the real ingest worker', () => {
  it('lands whole: every record accepted, none rejected, counted once', { timeout: 120_000 }, async () => {
    const rt = await createTestRuntime({ SAMPLE_DATA: 'true' })
    const producer = new IngestProducer(rt.config)
    const role = await startIngestRole(rt)
    try {
      const loaded = (await loadSampleDataIfEmpty(rt, producer, { endTime: END }))!
      const outcome = await new JobWaiter(producer.queue, loaded.jobIds, 50).waitAll()
      expect(outcome.failed).toEqual([])
      expect(outcome.rejected).toBe(0)
      expect(outcome.accepted).toBe(loaded.tokens + loaded.prices + loaded.swaps + loaded.holdings)
      const count = async (table: string) => {
        const rs = await rt.clickhouse.query({ query: `SELECT count() AS n FROM ${table} FINAL`, format: 'JSONEachRow' })
        return Number((await rs.json<{ n: string }>())[0]!.n)
      }
      expect(await count(rt.tables.tokens)).toBe(loaded.tokens)
      expect(await count(rt.tables.prices)).toBe(loaded.prices)
      expect(await count(rt.tables.swaps)).toBe(loaded.swaps)
      expect(await count(rt.tables.holdings)).toBe(loaded.holdings)
      expect(await count(rt.tables.deadLetters)).toBe(0)
      expect(await storeIsEmpty(rt)).toBe(false)
    } finally {
      await role.stop()
      await producer.close()
      await rt.cleanup()
    }
  })
})
