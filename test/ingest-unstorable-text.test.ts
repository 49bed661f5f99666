import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fastSwap } from '../ingest/pipeline/swap-fast-path.js'
import { swapLines } from '../ingest/pipeline/swap-lines.js'
import { validateRecords } from '../ingest/pipeline/validate-records.js'
import { swapRecord, tokenRecord } from '../shared/records/records.js'
import { startIngestHarness, type IngestHarness } from './support/ingest-harness.js'
import { swapInput, tokenInput } from './support/record-inputs.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * Text ClickHouse cannot store (a lone UTF-16 surrogate, e.g. "\ud800" from a JSON escape)
 * is refused by validation with a reason, so the record is dead-lettered and the valid
 * records of its job are stored, through the real worker, Redis and embedded ClickHouse.
 */

const LONE = ['\ud800', 'uni\udfffswap', 'x\ud83d', '\ude00y']

interface Letter {
  payload: string
  reason: string
  source: string
  record_type: string
}

let rt: TestRuntime
let ingest: IngestHarness

beforeAll(async () => {
  rt = await createTestRuntime({ INGEST_FLUSH_MS: '50' })
  ingest = await startIngestHarness(rt)
})
afterAll(async () => {
  await ingest?.close()
  await rt?.cleanup()
})

async function lettersFrom(source: string): Promise<Letter[]> {
  const rs = await rt.clickhouse.query({
    query: `SELECT payload, reason, source, record_type FROM ${rt.tables.deadLetters} FINAL WHERE source = {source:String} ORDER BY payload`,
    query_params: { source },
    format: 'JSONEachRow',
  })
  return rs.json<Letter>()
}

async function storedHashes(hashes: string[]): Promise<string[]> {
  const rs = await rt.clickhouse.query({
    query: `SELECT hash FROM ${rt.tables.swaps} FINAL WHERE hash IN {hashes:Array(String)} ORDER BY hash`,
    query_params: { hashes },
    format: 'JSONEachRow',
  })
  return (await rs.json<{ hash: string }>()).map((r) => r.hash)
}

describe('validation refuses text ClickHouse cannot store', () => {
  it('the schema rejects a lone surrogate in every free-text field, naming the field', () => {
    for (const text of LONE) {
      const swap = swapRecord.safeParse(swapInput('lone', { dex: text }))
      expect(swap.success).toBe(false)
      expect(swap.error?.issues[0]?.path).toEqual(['dex'])
      expect(swap.error?.issues[0]?.message).toMatch(/lone UTF-16 surrogate/)
      for (const field of ['name', 'symbol', 'id'] as const) {
        const token = tokenRecord.safeParse(tokenInput('lone', { [field]: text }))
        expect(token.success, `${field} ${JSON.stringify(text)}`).toBe(false)
        expect(token.error?.issues.map((i) => i.path.join('.'))).toContain(field)
      }
    }
    // Well-formed text outside the BMP (a surrogate pair) is fine.
    expect(swapRecord.safeParse(swapInput('pair', { dex: 'uni😀swap' })).success).toBe(true)
    expect(tokenRecord.safeParse(tokenInput('pair', { name: 'Smile 😀', symbol: '😀', id: 'smile-😀' })).success).toBe(true)
  })

  it('the swap fast path agrees with the schema: it never accepts a lone surrogate', () => {
    for (const text of LONE) {
      const input = swapInput('lone-fast', { dex: text })
      expect(fastSwap(input)).toBeUndefined()
      const { valid, rejected } = validateRecords('swap', [input])
      expect(valid).toEqual([])
      expect(rejected[0]?.reason).toMatch(/^dex: .*lone UTF-16 surrogate/)
      const lines = swapLines([input], 1)
      expect(lines.encoded.count).toBe(0)
      expect(lines.rejected[0]?.reason).toMatch(/^dex: .*lone UTF-16 surrogate/)
    }
    const pair = swapInput('pair-fast', { dex: 'uni😀swap' })
    expect(fastSwap(pair)).toStrictEqual(swapRecord.parse(pair))
  })
})

describe('a record with a lone surrogate among valid ones, through the worker', () => {
  it('swaps: the bad ones are dead-lettered with the reason, the valid ones are stored', async () => {
    const good = [swapInput('surrogate-good-1'), swapInput('surrogate-good-2', { dex: 'curve 😀' })]
    const bad = [swapInput('surrogate-bad-1', { dex: '\ud800' }), swapInput('surrogate-bad-2', { dex: 'uni\udfffswap' })]
    const jobId = await ingest.producer.send('swap', [good[0]!, bad[0]!, good[1]!, bad[1]!], 'surrogate-swaps')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 2, rejected: 2 })
    expect(await storedHashes([...good, ...bad].map((s) => s.hash))).toEqual(good.map((s) => s.hash).sort())

    const letters = await lettersFrom('surrogate-swaps')
    expect(letters).toHaveLength(2)
    for (const letter of letters) {
      expect(letter.reason).toMatch(/^dex: .*lone UTF-16 surrogate/)
      // The payload is the record as received, as JSON with the surrogate escaped: it reads back as the same record.
      const original = bad.find((b) => b.hash === (JSON.parse(letter.payload) as { hash: string }).hash)
      expect(JSON.parse(letter.payload)).toEqual(original)
    }
  })

  it('tokens: a lone surrogate in name, symbol or id is dead-lettered, the valid tokens are stored', async () => {
    const good = tokenInput('surrogate-token-good')
    const bad = [
      tokenInput('surrogate-token-1', { name: 'Bad \ud800 name' }),
      tokenInput('surrogate-token-2', { symbol: '\udc00' }),
      tokenInput('surrogate-token-3', { id: 'id-\ud83d' }),
    ]
    const jobId = await ingest.producer.send('token', [bad[0]!, good, bad[1]!, bad[2]!], 'surrogate-tokens')
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 3 })
    const rs = await rt.clickhouse.query({
      query: `SELECT contract_address, name FROM ${rt.tables.tokens} FINAL WHERE contract_address IN {a:Array(String)}`,
      query_params: { a: [good, ...bad].map((t) => t.contract_address) },
      format: 'JSONEachRow',
    })
    expect(await rs.json()).toEqual([{ contract_address: good.contract_address, name: good.name }])
    const reasons = (await lettersFrom('surrogate-tokens')).map((l) => l.reason.split(':')[0]).sort()
    expect(reasons).toEqual(['id', 'name', 'symbol'])
  })

  it('a dead letter whose received record, source or type holds a lone surrogate is still stored', async () => {
    const oddKey = { ...swapInput('surrogate-key', { hash: 'not-a-hash' }), ['\udc01key']: 'v\ud801' }
    const good = swapInput('surrogate-source-good')
    const source = 'feed-\ud800'
    const jobId = await ingest.producer.send('swap', [oddKey, good], source)
    expect(await ingest.finished(jobId)).toEqual({ accepted: 1, rejected: 1 })
    expect(await storedHashes([good.hash])).toEqual([good.hash])
    const [letter, ...others] = await lettersFrom('feed-\ufffd')
    expect(others).toEqual([])
    expect(letter!.reason).toMatch(/^hash: /)
    expect(letter!.payload).toContain('"\\udc01key":"v\\ud801"')
    expect(JSON.parse(letter!.payload)).toEqual(oddKey)

    const envelope = await ingest.producer.queue.add('swap', { type: 'swap\ud800', records: [good], source: 'bad-type' } as never)
    expect(await ingest.finished(envelope.id!)).toEqual({ accepted: 0, rejected: 1 })
    const [typeLetter] = await lettersFrom('bad-type')
    expect(typeLetter!.record_type).toBe('swap\ufffd')
    expect(typeLetter!.reason).toBe('job: unknown record type "swap\ufffd"')
  })
})

