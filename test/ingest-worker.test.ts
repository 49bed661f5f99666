import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'
import { countRows, startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { holdingInput, priceInput, swapInput, tokenInput } from './support/record-inputs.js'
import { addressFor, hashFor, mixedCase } from './support/factories.js'
import { MAX_TIMESTAMP_MS } from '../shared/records/records.js'

describe('ingest worker', () => {
  let rt: TestRuntime
  let ingest: IngestHarness
  beforeAll(async () => {
    rt = await createTestRuntime({ INGEST_FLUSH_MS: '50', INGEST_CONCURRENCY: '4' })
    ingest = await startIngestHarness(rt)
  })
  afterAll(async () => {
    await ingest?.close()
    await rt?.cleanup()
  })

  async function query<T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    const rs = await rt.clickhouse.query({ query: sql, query_params: params, format: 'JSONEachRow' })
    return rs.json<T>()
  }

  it('lands the valid records of a mixed batch and dead-letters the invalid ones with reasons naming the field', async () => {
    const good1 = swapInput('mixed-1', { wallet_address: mixedCase(addressFor('wallet-mixed')) })
    const good2 = swapInput('mixed-2', { wallet_address: addressFor('wallet-mixed') })
    const badHash = swapInput('mixed-3', { hash: '0x1234' })
    const badAmount = { ...swapInput('mixed-4'), token_sold: { contract_address: addressFor('weth'), amount_raw: 12.5 } }
    const jobId = await ingest.producer.send('swap', [good1, badHash, good2, badAmount], 'mixed-test')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 2, rejected: 2 })

    const swaps = await query<{ hash: string; wallet_address: string }>(
      `SELECT hash, wallet_address FROM ${rt.tables.swaps} FINAL WHERE wallet_address = {w:String} ORDER BY hash`,
      { w: addressFor('wallet-mixed') },
    )
    expect(swaps.map((s) => s.hash).sort()).toEqual([hashFor('mixed-1'), hashFor('mixed-2')].sort())

    const letters = await query<{ record_type: string; payload: string; reason: string; source: string }>(
      `SELECT record_type, payload, reason, source FROM ${rt.tables.deadLetters} FINAL WHERE source = 'mixed-test' ORDER BY reason`,
    )
    expect(letters).toHaveLength(2)
    expect(letters.every((l) => l.record_type === 'swap')).toBe(true)
    const reasons = letters.map((l) => l.reason)
    expect(reasons.some((r) => r.startsWith('hash:'))).toBe(true)
    expect(reasons.some((r) => r.startsWith('token_sold.amount_raw:'))).toBe(true)
    // the payload is the record as received, not normalized
    expect(letters.map((l) => JSON.parse(l.payload))).toContainEqual(badAmount)
  })

  it('keeps a completed job\'s result in Redis but drops its records, which are in ClickHouse', async () => {
    const jobId = await ingest.producer.send('swap', [swapInput('dropped-1'), swapInput('dropped-2')], 'drop-test')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 2, rejected: 0 })
    await expect
      .poll(async () => (await ingest.producer.queue.getJob(jobId))?.data.records.length, { timeout: 5_000 })
      .toBe(0)
    const job = await ingest.producer.queue.getJob(jobId)
    expect(job?.returnvalue).toEqual({ accepted: 2, rejected: 0 })
    expect(job?.data).toMatchObject({ type: 'swap', source: 'drop-test' })
  })

  it('serves and counts a batch delivered twice once, and stores its bad record once', async () => {
    const batch = [swapInput('twice-1'), swapInput('twice-2'), swapInput('twice-3', { block_number: -1 })]
    const first = await ingest.producer.send('swap', batch, 'twice-test')
    expect(await ingest.finished(first)).toEqual({ accepted: 2, rejected: 1 })
    const second = await ingest.producer.send('swap', batch, 'twice-test')
    expect(await ingest.finished(second)).toEqual({ accepted: 2, rejected: 1 })

    const hashes = [hashFor('twice-1'), hashFor('twice-2')]
    const [raw] = await query<{ n: string }>(`SELECT count() AS n FROM ${rt.tables.swaps} WHERE hash IN {h:Array(String)}`, { h: hashes })
    const [final] = await query<{ n: string }>(`SELECT count() AS n FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)}`, {
      h: hashes,
    })
    expect(Number(final!.n)).toBe(2)
    // the raw table may hold both deliveries until a merge; FINAL (what the API reads) never does
    expect(Number(raw!.n)).toBeGreaterThanOrEqual(2)
    const [letters] = await query<{ n: string }>(`SELECT count() AS n FROM ${rt.tables.deadLetters} FINAL WHERE source = 'twice-test'`)
    expect(Number(letters!.n)).toBe(1)
  })

  it('never lets a holding with an older as_of overwrite a newer one', async () => {
    const newer = holdingInput('wallet-h', 'weth', { balance_raw: '200', as_of: 1_717_000_100_000 })
    const older = holdingInput('wallet-h', 'weth', { balance_raw: '100', as_of: 1_717_000_000_000 })
    expect(await ingest.finished(await ingest.producer.send('holding', [newer]))).toEqual({ accepted: 1, rejected: 0 })
    expect(await ingest.finished(await ingest.producer.send('holding', [older]))).toEqual({ accepted: 1, rejected: 0 })
    const rows = await query<{ balance: string; as_of_ms: string }>(
      `SELECT toString(balance_raw) AS balance, toUnixTimestamp64Milli(as_of) AS as_of_ms FROM ${rt.tables.holdings} FINAL
       WHERE wallet_address = {w:String} AND contract_address = {t:String}`,
      { w: addressFor('wallet-h'), t: addressFor('weth') },
    )
    expect(rows).toEqual([{ balance: '200', as_of_ms: '1717000100000' }])
    await rt.clickhouse.command({ query: `OPTIMIZE TABLE ${rt.tables.holdings} FINAL` })
    const merged = await query<{ balance: string }>(
      `SELECT toString(balance_raw) AS balance FROM ${rt.tables.holdings} WHERE wallet_address = {w:String}`,
      { w: addressFor('wallet-h') },
    )
    expect(merged).toEqual([{ balance: '200' }])
  })

  it('accepts a swap before its token metadata, and joins once the token arrives', async () => {
    const newToken = addressFor('late-token')
    const swap = swapInput('early-swap', { token_bought: { contract_address: newToken, amount_raw: '42' } })
    expect(await ingest.finished(await ingest.producer.send('swap', swap))).toEqual({ accepted: 1, rejected: 0 })
    const before = await query<{ symbol: string | null }>(
      `SELECT t.symbol AS symbol FROM ${rt.tables.swaps} AS s FINAL LEFT JOIN ${rt.tables.tokens} AS t FINAL
         ON t.contract_address = s.token_bought_address WHERE s.hash = {h:String} SETTINGS join_use_nulls = 1`,
      { h: hashFor('early-swap') },
    )
    expect(before).toEqual([{ symbol: null }])
    const token = tokenInput('late-token', { symbol: 'LATE', contract_address: mixedCase(newToken) })
    expect(await ingest.finished(await ingest.producer.send('token', token))).toEqual({ accepted: 1, rejected: 0 })
    const after = await query<{ symbol: string | null }>(
      `SELECT t.symbol AS symbol FROM ${rt.tables.swaps} AS s FINAL LEFT JOIN ${rt.tables.tokens} AS t FINAL
         ON t.contract_address = s.token_bought_address WHERE s.hash = {h:String} SETTINGS join_use_nulls = 1`,
      { h: hashFor('early-swap') },
    )
    expect(after).toEqual([{ symbol: 'LATE' }])
  })

  it('keeps every digit of uint256 amounts above 2^53, up to 2^256-1', async () => {
    const max = ((1n << 256n) - 1n).toString()
    const above53 = ((1n << 53n) + 1n).toString()
    const swap = swapInput('big-amounts', {
      token_sold: { contract_address: addressFor('weth'), amount_raw: max },
      token_bought: { contract_address: addressFor('usdc'), amount_raw: `000${above53}` },
    })
    expect(await ingest.finished(await ingest.producer.send('swap', swap))).toEqual({ accepted: 1, rejected: 0 })
    const rows = await query<{ sold: string; bought: string }>(
      `SELECT toString(token_sold_amount) AS sold, toString(token_bought_amount) AS bought FROM ${rt.tables.swaps} FINAL WHERE hash = {h:String}`,
      { h: hashFor('big-amounts') },
    )
    expect(rows).toEqual([{ sold: max, bought: above53 }])
  })

  it('stores every field of a swap exactly: escaped text, nulls, extreme numbers and times', async () => {
    const odd = swapInput('odd-fields', {
      dex: 'tab\there, new\nline, back\\slash \\N "quoted" é 🚀',
      value_usd: 1e21,
      timestamp: 0,
      chain_id: 4_294_967_295,
    })
    const plain = swapInput('plain-fields', { dex: undefined, value_usd: 0.1 + 0.2, timestamp: MAX_TIMESTAMP_MS, block_number: Number.MAX_SAFE_INTEGER })
    const empty = swapInput('empty-fields', { dex: null, value_usd: null, timestamp: 5 })
    expect(await ingest.finished(await ingest.producer.send('swap', [odd, plain, empty]))).toEqual({ accepted: 3, rejected: 0 })
    const rows = await query<{ hash: string; dex: string | null; value_usd: number | null; ms: string; chain_id: number; block: string }>(
      `SELECT hash, dex, value_usd, toUnixTimestamp64Milli(timestamp) AS ms, chain_id, block_number AS block
       FROM ${rt.tables.swaps} FINAL WHERE hash IN {h:Array(String)} ORDER BY ms`,
      { h: [hashFor('odd-fields'), hashFor('plain-fields'), hashFor('empty-fields')] },
    )
    expect(rows).toEqual([
      { hash: hashFor('odd-fields'), dex: odd.dex, value_usd: 1e21, ms: '0', chain_id: 4_294_967_295, block: '19000000' },
      { hash: hashFor('empty-fields'), dex: null, value_usd: null, ms: '5', chain_id: 1, block: '19000000' },
      { hash: hashFor('plain-fields'), dex: null, value_usd: 0.1 + 0.2, ms: String(MAX_TIMESTAMP_MS), chain_id: 1, block: String(Number.MAX_SAFE_INTEGER) },
    ])
  })

  it('keeps the first id assigned to a token', async () => {
    const first = tokenInput('stable', { id: 'stable-token' })
    expect(await ingest.finished(await ingest.producer.send('token', first))).toEqual({ accepted: 1, rejected: 0 })
    const renamed = tokenInput('stable', { id: 'another-id', name: 'Renamed', contract_address: mixedCase(addressFor('stable')) })
    expect(await ingest.finished(await ingest.producer.send('token', renamed))).toEqual({ accepted: 1, rejected: 0 })
    const noId = tokenInput('stable', { name: 'Renamed again' })
    expect(await ingest.finished(await ingest.producer.send('token', noId))).toEqual({ accepted: 1, rejected: 0 })
    const rows = await query<{ id: string; name: string }>(`SELECT id, name FROM ${rt.tables.tokens} FINAL WHERE contract_address = {a:String}`, {
      a: addressFor('stable'),
    })
    expect(rows).toEqual([{ id: 'stable-token', name: 'Renamed again' }])
  })

  it('derives the id of a new token without one, and agrees on one id when two jobs race with different ids', async () => {
    const derived = tokenInput('derived')
    const raceA = tokenInput('race', { id: 'race-a' })
    const raceB = tokenInput('race', { id: 'race-b' })
    const ids = await ingest.producer.sendMany([
      { type: 'token', records: [derived, raceA, tokenInput('twin', { id: 'twin-1' }), tokenInput('twin', { id: 'twin-2' })], source: 'race' },
      { type: 'token', records: [raceB], source: 'race' },
    ])
    for (const id of ids) await ingest.finished(id)
    const rows = await query<{ contract_address: string; id: string }>(
      `SELECT contract_address, id FROM ${rt.tables.tokens} WHERE contract_address IN {a:Array(String)} ORDER BY contract_address`,
      { a: [addressFor('derived'), addressFor('race')] },
    )
    expect(rows.filter((r) => r.contract_address === addressFor('derived')).map((r) => r.id)).toEqual([addressFor('derived')])
    const raceIds = new Set(rows.filter((r) => r.contract_address === addressFor('race')).map((r) => r.id))
    expect(raceIds).toEqual(new Set(['race-a']))
    const twins = await query<{ id: string }>(`SELECT DISTINCT id FROM ${rt.tables.tokens} WHERE contract_address = {a:String}`, {
      a: addressFor('twin'),
    })
    expect(twins).toEqual([{ id: 'twin-1' }])
  })

  it('writes prices, and dead-letters a whole job whose type is unknown', async () => {
    const ok = priceInput('weth', { timestamp: 1_717_000_000_000 })
    const bad = priceInput('weth', { timestamp: 1_717_000_060_000, price_usd: 0 })
    expect(await ingest.finished(await ingest.producer.send('price', [ok, bad], 'price-test'))).toEqual({ accepted: 1, rejected: 1 })
    expect(await countRows(rt, rt.tables.prices, true)).toBe(1)
    const [letter] = await query<{ reason: string }>(`SELECT reason FROM ${rt.tables.deadLetters} FINAL WHERE source = 'price-test'`)
    expect(letter!.reason).toMatch(/^price_usd: /)

    const job = await ingest.producer.queue.add('swap', { type: 'trade' as 'swap', records: [{ a: 1 }], source: 'odd-job' })
    expect(await ingest.finished(job.id!)).toEqual({ accepted: 0, rejected: 1 })
    const [odd] = await query<{ record_type: string; reason: string }>(
      `SELECT record_type, reason FROM ${rt.tables.deadLetters} FINAL WHERE source = 'odd-job'`,
    )
    expect(odd).toEqual({ record_type: 'trade', reason: 'job: unknown record type "trade"' })
  })
})
