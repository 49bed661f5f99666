import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANDLE_MS, dateTime64Param, lastClosedCandleStart } from '../shared/candles/candles.js'
import { IngestProducer } from '../shared/records/ingest-producer.js'
import type { ClickHouseClient } from '../shared/storage/clickhouse.js'
import { startIngestHarness, waitForJob, type IngestHarness } from './support/ingest-harness.js'
import { getJson, startTestApi, type TestApi } from './support/http.js'
import { addressOf } from './support/market-rows.js'
import { spyingOnQueries } from './support/query-spy.js'
import { createTestRuntime, type TestRuntime } from './support/runtime.js'

/**
 * A candle read re-aggregates the token's changed hours first only when the change feed
 * shows something stored that can change a candle since the process last did it for that
 * token (api/candle-refresh-gate.ts): every acknowledged record shows at once, and a read
 * with nothing new costs only the feed's position and the candle query.
 */
describe('candle reads after ingestion', () => {
  let rt: TestRuntime
  let ingest: IngestHarness
  let api: TestApi
  let producer: IngestProducer
  /** Queries of the feed's changes and of its consumers' positions: what a refresh reads, never a read with nothing new. */
  let refreshQueries = 0
  const counting = (client: ClickHouseClient) =>
    spyingOnQueries(client, (sql) => {
      if (sql.includes(rt.tables.changes) || sql.includes(rt.tables.changePositions)) refreshQueries++
    })
  const token = addressOf(0x9a7e)
  const last = lastClosedCandleStart(Date.now())

  beforeAll(async () => {
    rt = await createTestRuntime()
    ingest = await startIngestHarness(rt)
    api = await startTestApi({ ...rt, clickhouse: counting(rt.clickhouse) })
    producer = new IngestProducer(rt.config)
    await waitForJob(producer, await producer.send('token', [{ contract_address: token, name: 'Gate', symbol: 'GATE', decimals: 6 }]))
  })
  afterAll(async () => {
    await producer?.close()
    await api?.close()
    await ingest?.close()
    await rt?.cleanup()
  })

  const closes = async () => {
    const { status, body } = await getJson(`${api.baseUrl}/tokens/${token}/candles?start_time=${last - 3 * CANDLE_MS}&end_time=${last}`)
    expect(status).toBe(200)
    return (body.result as { close: number }[]).map((c) => c.close)
  }
  const price = (time: number, price_usd: number) => ({ contract_address: token, timestamp: time, price_usd })

  it('shows every acknowledged price at once, and re-aggregates nothing when nothing was stored', async () => {
    await waitForJob(producer, await producer.send('price', [price(last - 2 * CANDLE_MS, 5), price(last, 7)]))
    expect(await closes()).toEqual([5, 5, 7])

    // Nothing stored since: the read re-aggregates nothing.
    const before = refreshQueries
    expect(await closes()).toEqual([5, 5, 7])
    expect(refreshQueries).toBe(before)

    // A row written straight into ClickHouse, bypassing ingestion: the views put it in the
    // change feed all the same, so the next read has it.
    await rt.clickhouse.insert({
      table: rt.tables.prices,
      format: 'JSONEachRow',
      values: [{ contract_address: token, timestamp: dateTime64Param(last + 1), price_usd: 9, volume_usd: null, ingested_at: dateTime64Param(Date.now()) }],
    })
    expect(await closes()).toEqual([5, 5, 9])
    expect(refreshQueries).toBeGreaterThan(before)

    // The next acknowledged record, for another hour, shows at once too.
    await waitForJob(producer, await producer.send('price', [price(last - CANDLE_MS, 6)]))
    expect(await closes()).toEqual([5, 6, 9])
  })
})
